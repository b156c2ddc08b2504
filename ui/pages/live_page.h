#pragma once
// The Live tab: the running configuration's steps as they arrive, its steady window and the long
// phases without steps, or a stored run's steps when nothing runs. It follows the LiveRun presenter.
#include "pages/page.h"

namespace stepscope::ui
{

class LiveRun;
class LiveStepChart;
class LaneStrip;

class LivePage : public Page
{
    Q_OBJECT
  public:
    // `run` is not owned and outlives the page.
    explicit LivePage(LiveRun *run, QWidget *parent = nullptr);

    QString title() const override { return tr("&Live"); }
    QString key() const override { return QStringLiteral("live"); }
    QCustomPlot *chart() const override;
    void clear() override;
    LiveStepChart *liveChart() const { return chart_; }
    LaneStrip *lanes() const { return lanes_; }

  private:
    LiveRun *run_;
    LiveStepChart *chart_;
    LaneStrip *lanes_ = nullptr; // shown during a sweep over several devices
};

} // namespace stepscope::ui
