#pragma once
// How a ledger row reads as text. One place for it, because the ledger table and the exported
// report must show the same figures in the same words.
#include "report/ledger.h"

#include <QString>
#include <QVariant>

namespace stepscope::ui
{

// column is a LedgerModel::Column.
QString ledgerHeader(int column);
// The same names on two lines where they are long ("Speed-up\n[95% CI]"), for the table's header
// at 1280 px; the tooltip and the report keep the full one.
QString ledgerShortHeader(int column);
QString ledgerCellText(const report::LedgerRow &row, int column);
// The raw number behind a cell, or an invalid QVariant when there is none: QSortFilterProxyModel
// sorts invalid values after every valid one, which NaN would not do (it compares unordered).
QVariant ledgerSortValue(const report::LedgerRow &row, int column);

bool ledgerRowFailed(const report::LedgerRow &row);    // no repeat completed, and not because of a Stop
bool ledgerRowCancelled(const report::LedgerRow &row); // no repeat completed: the sweep was stopped
bool ledgerRowDiverged(const report::LedgerRow &row);  // failed the accuracy gate
bool ledgerRowNumeric(int column);                     // right-aligned figures

// What lies behind a figure's interval (its CI, or "1 repeat: no interval"); empty when nothing.
QString ledgerIntervalTip(const report::LedgerRow &row, int column);

// "message\n\nFix: ..." for a row with a failure category, empty otherwise.
QString ledgerFailureText(const report::LedgerRow &row);

} // namespace stepscope::ui
