#include "models/comparison_setup.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>

namespace stepscope::ui
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("Compare", text);
}

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

// A setting as the row's configuration records it, else as the sweep's shared settings do.
QJsonValue setting(const report::Ledger &ledger, const report::LedgerRow &row, const char *key)
{
    const QJsonValue own = objectOf(row.configJson).value(QLatin1String(key));
    return own.isUndefined() ? objectOf(ledger.sweep.settingsJson).value(QLatin1String(key)) : own;
}

using Values = std::set<QString>;

// What one side measured on, each fact as the set of values its rows (or its record) hold.
struct Facts {
    Values batch, imageSize, device, runtime, gpu, cpu, torch, cuda;
};

void insertKnown(Values &values, const QString &value)
{
    if (!value.isEmpty())
        values.insert(value);
}

Facts factsOf(const report::Ledger &l)
{
    Facts f;
    for (const auto &row : l.rows) {
        if (const int batch = rowBatch(l, row); batch > 0)
            f.batch.insert(QString::number(batch));
        if (const int size = rowImageSize(l, row); size > 0)
            f.imageSize.insert(tr("%1 px").arg(size));
        QString device = setting(l, row, "device").toString();
        if (device.startsWith(QLatin1String("cuda")))
            device = QStringLiteral("cuda"); // which GPU of a host is not a difference in kind
        insertKnown(f.device, device);
        insertKnown(f.runtime, setting(l, row, "runtime").toString());
    }
    if (l.environment) {
        const QJsonObject env = objectOf(l.environment->json);
        insertKnown(f.gpu, QString::fromStdString(l.environment->gpu));
        insertKnown(f.cpu, env.value(QLatin1String("cpu")).toString());
        insertKnown(f.torch, QString::fromStdString(l.environment->torch));
        insertKnown(f.cuda, QString::fromStdString(l.environment->cuda));
    }
    return f;
}

QString joined(const Values &values)
{
    if (values.empty())
        return tr("not recorded");
    QStringList list(values.begin(), values.end());
    return list.join(QStringLiteral(", "));
}

} // namespace

int rowBatch(const report::Ledger &ledger, const report::LedgerRow &row)
{
    return setting(ledger, row, "batch").toInt(0);
}

int rowImageSize(const report::Ledger &ledger, const report::LedgerRow &row)
{
    return setting(ledger, row, "image_size").toInt(0);
}

ComparisonSetup compareSetup(const report::Ledger &a, const report::Ledger &b)
{
    const Facts fa = factsOf(a), fb = factsOf(b);
    ComparisonSetup setup;
    // A fact neither side recorded says nothing; one recorded on one side only is a difference
    // (a CPU sweep has no GPU, a file of an older worker no torch version).
    const auto note = [&](const QString &what, const Values &va, const Values &vb) {
        if (va != vb)
            setup.differences << tr("%1: A %2, B %3").arg(what, joined(va), joined(vb));
    };
    note(tr("Batch"), fa.batch, fb.batch);
    note(tr("Image size"), fa.imageSize, fb.imageSize);
    note(tr("Device"), fa.device, fb.device);
    note(tr("GPU"), fa.gpu, fb.gpu);
    if (fa.device.count(QStringLiteral("cpu")) && fb.device.count(QStringLiteral("cpu")))
        note(tr("CPU"), fa.cpu, fb.cpu);
    note(tr("Runtime (worker)"), fa.runtime, fb.runtime);
    note(tr("torch"), fa.torch, fb.torch);
    note(tr("CUDA"), fa.cuda, fb.cuda);
    setup.perImage = !fa.batch.empty() && !fb.batch.empty() && fa.batch != fb.batch;
    return setup;
}

} // namespace stepscope::ui
