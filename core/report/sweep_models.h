#pragma once
// The models a sweep trained (issue 30.4), as its runs' workers reported them, and how the views
// name them: the header of `show`, of the report and of the dashboard, and the prefix that tells
// rows of one sweep apart when it holds several models.
#include "common/model_facts.h"
#include "store/store.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stepscope::report
{

struct SweepModel {
    std::string name; // as the configuration names it: "resnet18", "timm:vit_tiny_patch16_224,img_size=64"
    ModelFacts facts; // the first facts a run of it reported; unrecorded in older files
};

// Each model of `runs` once, in the order they first appear.
std::vector<SweepModel> sweepModels(const std::vector<store::RunRecord> &runs);

// The facts of the first run of `runs` that reported any, preferring one with a FLOP count.
ModelFacts firstFacts(const std::vector<const store::RunRecord *> &runs);

// "11.7 M parameters", "162 parameters".
std::string parametersText(std::int64_t parameters);
// "timm:vit_tiny_patch16_224,img_size=64 (5.7 M parameters)": the name as configured (with its
// options, which the worker's description leaves out) and the parameters its run reported; the name
// alone for files of before issue 30.4.
std::string modelText(const SweepModel &model);
// Each model's modelText, joined by "; ".
std::string modelsText(const std::vector<SweepModel> &models);
// "Model: ..." or "Models: ...; ..."; "" without runs.
std::string modelsLine(const std::vector<SweepModel> &models);
// What a run's record says of its model and its step's FLOPs, for `show RUN`: "timm:... (5.7 M
// parameters, images 3x224x224, 10 classes); 5,717,416 parameters; 1.23 GFLOP a training step,
// counted by torch.utils.flop_counter", or why they were not counted; "" with nothing recorded.
std::string modelFactsText(const ModelFacts &facts);

} // namespace stepscope::report
