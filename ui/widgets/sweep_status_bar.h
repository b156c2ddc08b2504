#pragma once
// The window's status bar: the standing line (how far the running sweep is, how the last one
// ended, what the window waits for), the progress bar while a sweep runs, the phase of a long
// stretch without steps ("compiling 0:42"), and passing messages. It follows the LiveRun
// presenter and the report export by itself; others say their passing messages through say().
#include <QMap>
#include <QStatusBar>

class QLabel;
class QProgressBar;

namespace stepscope::ui
{

class LiveRun;
class ReportExport;

class SweepStatusBar : public QStatusBar
{
    Q_OBJECT
  public:
    // Neither is owned; both outlive the bar.
    SweepStatusBar(LiveRun *live, ReportExport *report, QWidget *parent = nullptr);

    void setText(const QString &text);
    QString text() const;
    // A passing message, gone after `timeoutMs`.
    void say(const QString &text, int timeoutMs);
    QString lastMessage() const { return lastMessage_; }
    // "compiling 0:42" while the running worker is in a long phase, else empty.
    QString phase() const;

  private:
    QLabel *text_;
    QProgressBar *progress_;
    QLabel *phase_;
    QMap<int, QString> phases_; // per lane (-1: one device's run), its phase's words
    QString lastMessage_;
};

} // namespace stepscope::ui
