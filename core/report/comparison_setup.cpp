#include "report/comparison_setup.h"

#include "config/model_name.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <set>

namespace stepscope::report
{
namespace
{

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

// A setting as the row's configuration records it, else as the sweep's shared settings do.
QJsonValue setting(const Ledger &ledger, const LedgerRow &row, const char *key)
{
    const QJsonValue own = objectOf(row.configJson).value(QLatin1String(key));
    return own.isUndefined() ? objectOf(ledger.sweep.settingsJson).value(QLatin1String(key)) : own;
}

using Values = std::set<std::string>;

// What one side measured on, each fact as the set of values its rows (or its record) hold.
struct Facts {
    Values batch, imageSize, device, runtime, model, gpu, cpu, torch, cuda;
};

void insertKnown(Values &values, const std::string &value)
{
    if (!value.empty())
        values.insert(value);
}

Facts factsOf(const Ledger &l)
{
    Facts f;
    for (const auto &row : l.rows) {
        if (const int batch = rowBatch(l, row); batch > 0)
            f.batch.insert(std::to_string(batch));
        if (const int size = rowImageSize(l, row); size > 0)
            f.imageSize.insert(std::to_string(size));
        std::string device = setting(l, row, "device").toString().toStdString();
        if (device.rfind("cuda", 0) == 0)
            device = "cuda"; // which GPU of a host is not a difference in kind
        insertKnown(f.device, device);
        insertKnown(f.runtime, setting(l, row, "runtime").toString().toStdString());
        // Configurations of before issue 30 name no model: they trained ResNet18.
        f.model.insert(setting(l, row, "model").toString(QString::fromLatin1(kDefaultModel)).toStdString());
    }
    if (l.environment) {
        insertKnown(f.gpu, l.environment->gpu);
        insertKnown(f.cpu, objectOf(l.environment->json).value(QLatin1String("cpu")).toString().toStdString());
        insertKnown(f.torch, l.environment->torch);
        insertKnown(f.cuda, l.environment->cuda);
    }
    return f;
}

const char *factName(SetupFact fact)
{
    switch (fact) {
    case SetupFact::Batch:
    case SetupFact::MatchedAcrossBatches:
        return "Batch";
    case SetupFact::ImageSize:
        return "Image size";
    case SetupFact::Device:
        return "Device";
    case SetupFact::Gpu:
        return "GPU";
    case SetupFact::Cpu:
        return "CPU";
    case SetupFact::Runtime:
        return "Runtime (worker)";
    case SetupFact::Model:
        return "Model";
    case SetupFact::Torch:
        return "torch";
    case SetupFact::Cuda:
        return "CUDA";
    }
    return "";
}

std::string joined(const std::vector<std::string> &values, SetupFact fact)
{
    if (values.empty())
        return "not recorded";
    std::string out;
    for (const auto &v : values)
        out += (out.empty() ? "" : ", ") + v + (fact == SetupFact::ImageSize ? " px" : "");
    return out;
}

} // namespace

int rowBatch(const Ledger &ledger, const LedgerRow &row)
{
    return setting(ledger, row, "batch").toInt(0);
}

int rowImageSize(const Ledger &ledger, const LedgerRow &row)
{
    return setting(ledger, row, "image_size").toInt(0);
}

ComparisonSetup compareSetup(const Ledger &a, const Ledger &b)
{
    const Facts fa = factsOf(a), fb = factsOf(b);
    ComparisonSetup setup;
    // A fact neither side recorded says nothing; one recorded on one side only is a difference
    // (a CPU sweep has no GPU, a file of an older worker no torch version).
    const auto note = [&](SetupFact fact, const Values &va, const Values &vb) {
        if (va != vb)
            setup.differences.push_back({fact, {va.begin(), va.end()}, {vb.begin(), vb.end()}});
    };
    note(SetupFact::Batch, fa.batch, fb.batch);
    note(SetupFact::ImageSize, fa.imageSize, fb.imageSize);
    note(SetupFact::Device, fa.device, fb.device);
    note(SetupFact::Gpu, fa.gpu, fb.gpu);
    if (fa.device.count("cpu") && fb.device.count("cpu"))
        note(SetupFact::Cpu, fa.cpu, fb.cpu);
    note(SetupFact::Runtime, fa.runtime, fb.runtime);
    note(SetupFact::Model, fa.model, fb.model);
    note(SetupFact::Torch, fa.torch, fb.torch);
    note(SetupFact::Cuda, fa.cuda, fb.cuda);
    // Other models do other work a step: what compares is the time each takes per sample it trains on.
    setup.modelsDiffer = !fa.model.empty() && !fb.model.empty() && fa.model != fb.model;
    setup.perImage = (!fa.batch.empty() && !fb.batch.empty() && fa.batch != fb.batch) || setup.modelsDiffer;
    return setup;
}

std::string differenceText(const SetupDifference &d)
{
    if (d.fact == SetupFact::MatchedAcrossBatches)
        return "Batch: matched configurations ran with other batches";
    return std::string(factName(d.fact)) + ": A " + joined(d.a, d.fact) + ", B " + joined(d.b, d.fact);
}

} // namespace stepscope::report
