#pragma once
// Documentation screenshots: a PNG of the window on every page of its tabs, then the run detail as
// a double-click on the ledger shows it. Take them when idle.
#include <QString>

class QTabWidget;
class QWidget;

namespace stepscope::ui
{

class LedgerPage;

// Writes stepscope-<page key>.png per page, stepscope-run-detail.png (the first compiled
// configuration that ran) and stepscope-run-detail-failed.png (the first that failed) into `dir`.
bool saveScreenshots(QWidget *window, QTabWidget *tabs, LedgerPage *ledger, const QString &dir, QString *error);

} // namespace stepscope::ui
