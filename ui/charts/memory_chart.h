#pragma once
// The Why page's "Memory over one step" (issue 31.2): allocated and reserved MiB over the step a
// CUDA run recorded after its timed ones (profile/memory_timeline.h), against ms since the step's
// first allocator event (or the event's index where the allocator kept no times), the peak marked.
// It draws the timeline its page hands it (the current Why row's); without one it is empty and the
// page hides it and says why.
#include "charts/chart_widget.h"
#include "profile/memory_timeline.h"

#include <QVector>

#include <optional>

class QCPGraph;

namespace stepscope::ui
{

class MemoryChart : public ChartWidget
{
    Q_OBJECT
  public:
    explicit MemoryChart(QWidget *parent = nullptr);

    // Draws a copy of `timeline`; nullopt clears the chart.
    void setTimeline(const std::optional<profile::MemoryTimeline> &timeline);
    bool hasTimeline() const { return timeline_.has_value(); }

    // For tests: the curves as drawn (MiB), in the timeline's order.
    QVector<double> allocatedMiB() const { return allocated_; }
    QVector<double> reservedMiB() const { return reserved_; }

  protected:
    void paletteChanged() override;

  private:
    void rebuild();

    std::optional<profile::MemoryTimeline> timeline_;
    QCPGraph *allocatedGraph_ = nullptr;
    QCPGraph *reservedGraph_ = nullptr;
    QVector<double> allocated_, reserved_;
};

} // namespace stepscope::ui
