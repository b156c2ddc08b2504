#pragma once
// The configuration panel's action bar: the planned run (its box from the sweep's limits table),
// the line that says what Start would run and for how long, Start and Stop, and the running sweep's
// progress beside them, where the eye is after pressing Start. A window may pin it outside a
// scrolled panel (ConfigPanel::actionBar, widgets/panel_column.h).
#include <QWidget>

namespace stepscope::supervisor
{
struct SweepPreview;
struct SweepRequest;
} // namespace stepscope::supervisor

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace stepscope::ui
{

class ActionBar : public QWidget
{
    Q_OBJECT
  public:
    explicit ActionBar(QWidget *parent = nullptr);

    // The line above Start; a `problem` (Start would refuse) in the failure colour.
    void setPreview(const QString &text, bool problem);
    // The line for what `request` runs and for how long, as supervisor::preview counts it: "ledger,
    // 4 configurations × 1 repeat, about 2 min"; `runAgain` for a stored sweep's runs.
    void showPlan(const supervisor::SweepRequest &request, const supervisor::SweepPreview &p, bool runAgain);
    // `fraction` in [0, 1] and the time left (< 0: not known yet).
    void setProgress(double fraction, qint64 secondsLeft, bool guess);
    QString progressText() const; // empty while the bar is hidden

    QSpinBox *const planned;
    QLabel *const preview;
    QPushButton *const start;
    QPushButton *const stop;
    QProgressBar *const progress;
};

} // namespace stepscope::ui
