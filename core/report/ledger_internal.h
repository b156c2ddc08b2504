#pragma once
// What the ledger's files share and nobody outside core/report calls: helpers of one job that
// another job's file needs. Each group names the file that defines it.
#include "report/ledger.h"

#include <string>
#include <vector>

namespace stepscope::report
{

// ledger_labels.cpp
// A configuration's knobs: the canonical name's last word ("tf32+bf16", "baseline").
std::string knobsOf(const std::string &configName);
// The knobs of a canonical name or a row label, in its order: "tf32+bf16" two, "baseline" none.
std::vector<std::string> knobListOf(const std::string &nameOrLabel);
// Knobs joined as a name writes them: "tf32+bf16" ("" for none).
std::string joinedKnobs(const std::vector<std::string> &knobs);
// A configuration's runtime: the canonical name's first word.
std::string runtimeOf(const std::string &configName);
// A row's label: its knobs, after its runtime where that is not the baseline's ("python tf32"), and
// after its model in a sweep of several models ("timm:vit_tiny python tf32"): rows of one sweep
// never share a label.
std::string rowLabelOf(const std::string &configName, const std::string &baselineName, const std::string &model,
                       bool severalModels);
// In a cumulative ledger each row adds knobs to the one before: its axis label says just that
// ("+bf16"); any other row keeps its label.
std::string axisLabelOf(const std::string &label, const std::string *previous);

// accuracy_gate.cpp
// The accuracy gate: the row's losses over the first steps against the baseline's (none for the
// baseline itself, which is the reference).
LedgerRow::Accuracy accuracyOf(const LedgerRow &row, const std::vector<double> &losses,
                               const std::vector<double> *baselineLosses);
// Where a row's losses left the baseline's most: "step 4: 0.86 vs 0.52, 0.21 allowed".
std::string differenceTextOf(const LedgerRow::Accuracy &accuracy);

// recommendation.cpp
// What finishes the planned run first under each start state (Ledger::byStart).
void pickByStart(Ledger &ledger);

} // namespace stepscope::report
