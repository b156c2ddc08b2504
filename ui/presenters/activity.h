#pragma once
// What the dashboard is busy with, for the header: the database being opened, else the first busy
// one of the ledger, the comparison, the report and the quick reads, in that order; and whether
// anything is busy at all (tests, screenshots and the bench wait for that to settle). What a job
// fails to do becomes a passing message. No widgets: the window shows the text.
#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace stepscope::ui
{

class ComparisonJob;
class QueryJob;
class ReaderJob;
class ReportExport;
class RunController;
class ShownSweep;

class Activity : public QObject
{
    Q_OBJECT
  public:
    // None is owned; all outlive this.
    Activity(RunController *controller, ShownSweep *shown, ComparisonJob *comparison, ReportExport *report,
             QueryJob *query, QObject *parent = nullptr);

    bool isBusy() const;
    QString text() const;
    // Reads every source again: for a change no watched signal announces (an open just started).
    void update();

  Q_SIGNALS:
    void textChanged(const QString &text);
    void busyChanged(bool busy);
    void message(const QString &text, int timeoutMs);

  private:
    // `busy` and `text` are read again whenever `sender` emits `changed`.
    template <typename Sender, typename Signal>
    void watch(Sender *sender, Signal changed, std::function<bool()> busy, std::function<QString()> text);
    void watchJob(ReaderJob *job, const QString &text);
    void reportFailures(ReaderJob *job);

    struct Source {
        std::function<bool()> busy;
        std::function<QString()> text;
    };
    RunController *controller_;
    std::vector<Source> sources_;
    bool busy_ = false;
};

} // namespace stepscope::ui
