#pragma once
// What each side of a sweep comparison measured on: shape (batch, image size), device, GPU or CPU,
// runtime, torch and CUDA. Two sweeps that differ in any of these do not compare like with like,
// so both front-ends name every difference above the figures; a batch that differs makes the
// figures per image (a step of 128 images is not slower than one of 32 because it takes longer).
// Plain values over report::Ledger: callable on any thread.
#include "report/ledger.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// The batch and image size of a ledger row: its stored configuration's, else the sweep's settings;
// 0 when neither records it.
int rowBatch(const Ledger &ledger, const LedgerRow &row);
int rowImageSize(const Ledger &ledger, const LedgerRow &row);

enum class SetupFact {
    Batch,
    ImageSize,
    Device, // "cuda" for any GPU of a host: which one is no difference in kind
    Gpu,
    Cpu, // compared only when both sides ran on the CPU
    Runtime,
    Model, // the model trained (issue 30): another model's step does other work, so figures are per sample
    Torch,
    Cuda,
    MatchedAcrossBatches, // rows matched by their knobs ran with other batches, though the sweeps' batch sets agree
};

// One way the sides differ: the values each side's rows (or record) hold, sorted; an empty side
// did not record the fact.
struct SetupDifference {
    SetupFact fact = SetupFact::Batch;
    std::vector<std::string> a, b;
};

struct ComparisonSetup {
    std::vector<SetupDifference> differences; // empty when both sides ran alike
    bool perImage = false;                    // the sides' batches or models differ: steady times compare per sample
    bool modelsDiffer = false;                // the sides trained other models
};

ComparisonSetup compareSetup(const Ledger &a, const Ledger &b);

// "Batch: A 32, B 128", "GPU: A NVIDIA H200, B not recorded".
std::string differenceText(const SetupDifference &difference);

} // namespace stepscope::report
