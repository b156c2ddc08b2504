#include "pages/live_page.h"

#include "charts/live_step_chart.h"
#include "presenters/live_run.h"
#include "parts/lane_strip.h"

#include <QVBoxLayout>

namespace stepscope::ui
{

LivePage::LivePage(LiveRun *run, QWidget *parent) : Page(parent), run_(run), chart_(new LiveStepChart)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    lanes_ = new LaneStrip(run_->controller());
    layout->addWidget(lanes_);
    layout->addWidget(chart_, 1);
    // The presenter's lanes are the chart's (-1: the one trace).
    connect(run_, &LiveRun::runShown, chart_, &LiveStepChart::beginRun);
    connect(run_, &LiveRun::laneRunShown, chart_, &LiveStepChart::beginLaneRun);
    connect(run_, &LiveRun::stepsArrived, chart_,
            qOverload<int, int, const QVector<double> &>(&LiveStepChart::appendSteps));
    connect(run_, &LiveRun::steadyWindowFound, chart_, qOverload<int, int, int>(&LiveStepChart::setSteadyWindow));
    connect(run_, &LiveRun::steadyWindowLost, chart_, qOverload<int>(&LiveStepChart::clearSteadyWindow));
    connect(run_, &LiveRun::phaseShown, chart_,
            qOverload<int, const QString &, const QString &>(&LiveStepChart::setPhase));
    connect(run_, &LiveRun::phaseCleared, chart_, qOverload<int>(&LiveStepChart::clearPhase));
}

QCustomPlot *LivePage::chart() const
{
    return chart_->plot();
}

void LivePage::clear()
{
    run_->leave();
}

} // namespace stepscope::ui
