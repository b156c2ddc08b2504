#pragma once
// The accuracy gate (accuracy_gate.cpp): a row's losses against the baseline's, and its verdict in
// words.
#include "report/ledger.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// Tolerance of the accuracy gate for a configuration's precision (fp16 or bf16 autocast, TF32,
// fp32), at least TF32's for a compiled configuration.
double lossTolerance(const RunConfig &config);
// The difference allowed between a loss and the baseline's at the same step: tolerance x (|the
// baseline's loss| + |the baseline's first loss|).
double lossAllowance(double tolerance, double baselineLoss, double baselineFirstLoss);
// The gate itself, on two loss curves (`losses` the row's, `baseline` the reference's).
LedgerRow::Accuracy compareLosses(const std::vector<double> &losses, const std::vector<double> &baseline,
                                  double tolerance);

// "ok", "reference", "n/a", "differs (step 4: 0.86 vs 0.52, 0.21 allowed)", "diverged (loss rose from
// 6.91 to 9.30)", "diverged (a loss is not finite)".
std::string accuracyText(const LedgerRow::Accuracy &accuracy);
// Why the recommendation left a row out, or "" for a candidate (its accuracy verdict: Diverged).
std::string leftOutReason(const LedgerRow &row);

} // namespace stepscope::report
