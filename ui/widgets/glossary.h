#pragma once
// The words the views use without room to explain them (a "n.s." in a cell, "machine cold" beside a
// first step, a chart's "Pareto front"), each said once, short and exact: how core/stats and
// core/report decide it. Help › Glossary and F1 open it.
#include <QDialog>
#include <QList>
#include <QString>

namespace stepscope::ui
{

struct GlossaryEntry {
    QString term;
    QString meaning; // plain text, one paragraph
};

// In the order a user meets them: the ledger's flags, then the charts' words.
QList<GlossaryEntry> glossaryEntries();

class GlossaryDialog : public QDialog
{
    Q_OBJECT
  public:
    explicit GlossaryDialog(QWidget *parent = nullptr);
    // The dialog's text as shown (tests).
    QString text() const;

  private:
    QString text_;
};

} // namespace stepscope::ui
