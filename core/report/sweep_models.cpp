#include "report/sweep_models.h"

#include "config/model_name.h"
#include "report/ledger_rows.h"
#include "report/number_text.h"

#include <algorithm>

namespace stepscope::report
{

std::vector<SweepModel> sweepModels(const std::vector<store::RunRecord> &runs)
{
    std::vector<SweepModel> models;
    for (const auto &run : runs) {
        const std::string name = storedConfig(run.configJson).model;
        auto it = std::find_if(models.begin(), models.end(), [&](const SweepModel &m) { return m.name == name; });
        if (it == models.end())
            it = models.insert(models.end(), SweepModel{name, {}});
        if ((!it->facts.recorded() && run.model.recorded()) || (!it->facts.trainingFlops && run.model.trainingFlops))
            it->facts = run.model;
    }
    return models;
}

ModelFacts firstFacts(const std::vector<const store::RunRecord *> &runs)
{
    ModelFacts facts;
    for (const auto *run : runs)
        if ((!facts.recorded() && run->model.recorded()) || (!facts.trainingFlops && run->model.trainingFlops))
            facts = run->model;
    return facts;
}

std::string parametersText(std::int64_t parameters)
{
    return parameters >= 1000000 ? formatNumber("%.1f", static_cast<double>(parameters) / 1e6) + " M parameters"
                                 : groupThousands(parameters) + " parameters";
}

std::string modelText(const SweepModel &model)
{
    return model.facts.parameters ? model.name + " (" + parametersText(*model.facts.parameters) + ")" : model.name;
}

std::string modelsText(const std::vector<SweepModel> &models)
{
    std::string out;
    for (std::size_t i = 0; i < models.size(); ++i)
        out += (i ? "; " : "") + modelText(models[i]);
    return out;
}

std::string modelsLine(const std::vector<SweepModel> &models)
{
    if (models.empty())
        return {};
    return (models.size() == 1 ? "Model: " : "Models: ") + modelsText(models);
}

std::string modelFactsText(const ModelFacts &facts)
{
    if (!facts.recorded())
        return {};
    std::string out = facts.description;
    // The exact count too: the description rounds to millions, which says 0.0 of a tiny model.
    if (facts.parameters)
        out += (out.empty() ? "" : "; ") + groupThousands(*facts.parameters) + " parameters";
    if (facts.trainingFlops)
        out += "; " + formatNumber("%.3g", *facts.trainingFlops / 1e9) + " GFLOP a training step, " +
               flopsSourceText(facts.flopsSource);
    else if (!facts.flopsProblem.empty())
        out += "; FLOPs not counted: " + facts.flopsProblem;
    return out;
}

} // namespace stepscope::report
