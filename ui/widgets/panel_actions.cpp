#include "widgets/panel_actions.h"

#include "models/status_colors.h"
#include "models/time_left_text.h"
#include "supervisor/sweep_request.h"
#include "widgets/field_widgets.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace stepscope::ui
{

ActionBar::ActionBar(QWidget *parent)
    : QWidget(parent), planned(limitSpin(supervisor::kPlannedStepsLimit)), preview(new QLabel),
      start(new QPushButton(tr("Start"))), stop(new QPushButton(tr("Stop"))), progress(new QProgressBar)
{
    start->setDefault(true);
    stop->setEnabled(false);
    progress->setRange(0, 1000);
    progress->setTextVisible(true);
    progress->setVisible(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(start);
    buttons->addWidget(stop);
    buttons->addWidget(progress, 1);
    preview->setObjectName(QStringLiteral("sweepPreview"));
    preview->setWordWrap(true);
    preview->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *plannedRow = new QFormLayout;
    addLimitRow(plannedRow, supervisor::kPlannedStepsLimit, planned);
    layout->addLayout(plannedRow);
    layout->addWidget(preview);
    layout->addLayout(buttons);
}

void ActionBar::setPreview(const QString &text, bool problem)
{
    preview->setText(text);
    preview->setStyleSheet(problem ? QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()) : QString());
}

void ActionBar::setProgress(double fraction, qint64 secondsLeft, bool guess)
{
    progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
    progress->setFormat(
        QStringLiteral("%1% · %2").arg(static_cast<int>(fraction * 100)).arg(timeLeftText(secondsLeft, guess)));
}

QString ActionBar::progressText() const
{
    return progress->isVisible() ? progress->format() : QString();
}

} // namespace stepscope::ui
