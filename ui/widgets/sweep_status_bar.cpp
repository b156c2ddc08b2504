#include "widgets/sweep_status_bar.h"

#include "presenters/live_run.h"
#include "presenters/report_export.h"

#include <QLabel>
#include <QProgressBar>

namespace stepscope::ui
{

SweepStatusBar::SweepStatusBar(LiveRun *live, ReportExport *report, QWidget *parent)
    : QStatusBar(parent), text_(new QLabel(tr("Ready"))), progress_(new QProgressBar), phase_(new QLabel)
{
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(240);
    progress_->setVisible(false);
    phase_->setStyleSheet(QStringLiteral("QLabel { font-weight: bold; padding: 0 8px; }"));
    phase_->setVisible(false);
    // Several lanes make a long line: cut at the window's edge (the tooltip has it whole) rather
    // than widen the window.
    text_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    addWidget(text_, 1);
    addPermanentWidget(phase_);
    addPermanentWidget(progress_);

    connect(live, &LiveRun::sweepBegan, this, [this] {
        progress_->setVisible(true);
        progress_->setValue(0);
    });
    connect(live, &LiveRun::progressed, this, [this](double fraction, const QString &text) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        text_->setText(text);
        text_->setToolTip(text); // whole, where a narrow window cuts the line
    });
    connect(live, &LiveRun::phaseShown, this,
            [this, live](int lane, const QString &status, const QString &explanation) {
                // Each lane in its long phase, named (one device's needs no name).
                phases_[lane] = lane < 0 ? status : tr("%1 %2").arg(live->laneLabel(lane), status);
                phase_->setText(QStringList(phases_.values()).join(QStringLiteral(" · ")));
                phase_->setToolTip(explanation);
                phase_->setVisible(true);
            });
    connect(live, &LiveRun::phaseCleared, this, [this](int lane) {
        phases_.remove(lane);
        phase_->setText(QStringList(phases_.values()).join(QStringLiteral(" · ")));
        phase_->setVisible(!phases_.isEmpty());
    });
    connect(live, &LiveRun::sweepEnded, this, [this](qint64, bool, const QString &summary) {
        progress_->setVisible(false);
        text_->setText(summary);
    });
    connect(live, &LiveRun::message, this, &SweepStatusBar::say);
    connect(report, &ReportExport::written, this,
            [this](const QString &path) { say(tr("Report written to %1").arg(path), 6000); });
}

void SweepStatusBar::setText(const QString &text)
{
    text_->setText(text);
}

QString SweepStatusBar::text() const
{
    return text_->text();
}

void SweepStatusBar::say(const QString &text, int timeoutMs)
{
    lastMessage_ = text;
    showMessage(text, timeoutMs);
}

QString SweepStatusBar::phase() const
{
    return phase_->isVisible() ? phase_->text() : QString();
}

} // namespace stepscope::ui
