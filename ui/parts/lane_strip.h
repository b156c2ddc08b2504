#pragma once
// Above the live chart during a sweep over several devices (issue 21): one row per lane, with the
// run it has now, that run's first step and its end. Hidden for a sweep on one device. It reads the
// controller's signals; the chart below draws each lane's run.
#include <QList>
#include <QWidget>

#include <optional>

class QTableWidget;

namespace stepscope
{
enum class RunStatus;
struct Failure;
} // namespace stepscope

namespace stepscope::ui
{

class RunController;

class LaneStrip : public QWidget
{
    Q_OBJECT
  public:
    explicit LaneStrip(RunController *controller, QWidget *parent = nullptr);
    QTableWidget *table() const { return table_; }
    // The text of lane `row`'s cells, joined by " | " (tests).
    QString rowText(int row) const;

  private:
    void onRunOnLane(qint64 runId, int lane, const QString &label, const QString &config, int index, int total);
    void onFirstStep(qint64 runId, double seconds);
    void onRunFinished(qint64 runId, RunStatus status, const std::optional<Failure> &failure);
    QList<int> rowsOf(qint64 runId) const; // a data-parallel run holds several

    QTableWidget *table_;
};

} // namespace stepscope::ui
