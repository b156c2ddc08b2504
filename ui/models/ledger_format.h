#pragma once
// How a ledger row reads as text. One place for it, because the ledger table and the exported
// report must show the same figures in the same words.
#include "report/ledger.h"

#include <QString>
#include <QVariant>

#include <vector>

namespace stepscope::ui
{

// column is a LedgerModel::Column.
QString ledgerHeader(int column);
// The same names on two lines where they are long ("Speed-up\n[95% CI]"), for the table's header
// at 1280 px; the tooltip and the report keep the full one.
QString ledgerShortHeader(int column);
QString ledgerCellText(const report::LedgerRow &row, int column);
// The start states the table's first-step column shows, in its order: the ledger's own first, then
// the others a row ran. Empty for a file that recorded none (the column is one figure then).
std::vector<store::StartState> firstStepStates(const report::Ledger &ledger);
// The first-step cell on one line (issue 35.6): one figure per state of `states`, "-" where the row
// did not run it ("12.6 s / 2.4 s"); the header names the states, the tooltip has the rest.
QString firstStepCell(const report::LedgerRow &row, const std::vector<store::StartState> &states);
// "First step (fresh / again)", or ledgerHeader's without states.
QString firstStepHeader(const std::vector<store::StartState> &states);
// The raw number behind a cell, or an invalid QVariant when there is none: QSortFilterProxyModel
// sorts invalid values after every valid one, which NaN would not do (it compares unordered).
QVariant ledgerSortValue(const report::LedgerRow &row, int column);

bool ledgerRowFailed(const report::LedgerRow &row);    // no repeat completed, and not because of a Stop
bool ledgerRowCancelled(const report::LedgerRow &row); // no repeat completed: the sweep was stopped
bool ledgerRowDiverged(const report::LedgerRow &row);  // failed the accuracy gate
bool ledgerRowNumeric(int column);                     // right-aligned figures

// A row's peak memory for a tooltip (report::memoryDetailText): allocated, reserved, their spread
// over processes and n, and the ratio to the baseline's; or why there is no figure.
QString ledgerMemoryTip(const report::LedgerRow &row);
// A row's energy for a tooltip (report::energyText): joules per step, interval, power and n, the first
// step's joules and the break-even in joules; or why there is none ("No energy counter: a CPU run").
QString ledgerEnergyTip(const report::LedgerRow &row);

// What lies behind a figure's interval (its CI, or "1 repeat: no interval"); empty when nothing.
QString ledgerIntervalTip(const report::LedgerRow &row, int column);

// "message\n\nFix: ..." for a row with a failure category, empty otherwise.
QString ledgerFailureText(const report::LedgerRow &row);

} // namespace stepscope::ui
