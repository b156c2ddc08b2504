#pragma once
// One tab of the dashboard. The window assembles pages in the order it adds them and knows them
// only through this: the tab's title, a stable key (screenshot file names), the chart to export,
// and how to forget what it showed when another database is opened.
#include <QString>
#include <QWidget>

class QCustomPlot;

namespace stepscope::ui
{

class Page : public QWidget
{
    Q_OBJECT
  public:
    using QWidget::QWidget;

    // The tab's text, with its mnemonic ("Le&dger").
    virtual QString title() const = 0;
    // A stable lower-case name ("ledger", "break-even").
    virtual QString key() const = 0;
    // The chart File › Export current chart writes; nullptr for a page without one.
    virtual QCustomPlot *chart() const { return nullptr; }
    // Forgets what the page shows of its own (models are cleared by their owners).
    virtual void clear() {}
};

} // namespace stepscope::ui
