#pragma once
// What each side of a comparison measured on: shape (batch, image size), device, GPU or CPU,
// runtime, torch and CUDA. Two sweeps that differ in any of these do not compare like with like,
// so the Compare page names every difference above its figures; a batch that differs makes the
// figures per image (a step of 128 images is not slower than one of 32 because it takes longer).
// Plain values over report::Ledger: callable on any thread.
#include "report/ledger.h"

#include <QString>
#include <QStringList>

namespace stepscope::ui
{

// The batch and image size of a ledger row: its stored configuration's, else the sweep's settings;
// 0 when neither records it.
int rowBatch(const report::Ledger &ledger, const report::LedgerRow &row);
int rowImageSize(const report::Ledger &ledger, const report::LedgerRow &row);

struct ComparisonSetup {
    // One line per difference, "Batch: A 32, B 128"; empty when both sides ran alike.
    QStringList differences;
    // The sides' batches differ: steady times compare per image.
    bool perImage = false;
};

ComparisonSetup compareSetup(const report::Ledger &a, const report::Ledger &b);

} // namespace stepscope::ui
