#pragma once
// The ledger's names for rows (ledger_labels.cpp): which row a stored run belongs to, and a row's
// short label against another's.
#include "report/ledger.h"

#include <string>

namespace stepscope::report
{

// The ledger row a stored run of `configName` belongs to: an older file's "+warm-cache" row is its
// cold twin's, since the compile caches became the run's start state.
std::string rowNameOf(const std::string &configName);
// `row`'s label against `reference`'s: "+sgd-fused" when it adds knobs to it, "without cuda-graph"
// when it only takes some away, else its own label.
std::string shortLabel(const LedgerRow &row, const LedgerRow &reference);

} // namespace stepscope::report
