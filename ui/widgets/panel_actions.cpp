#include "widgets/panel_actions.h"

#include "config/model_name.h"
#include "models/status_colors.h"
#include "models/time_left_text.h"
#include "supervisor/sweep_recipe.h"
#include "supervisor/time_left.h"
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
namespace
{

// "1 repeat", "3 repeats": English plurals without a translation file.
QString counted(int n, const QString &one, const QString &many)
{
    return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

} // namespace

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

void ActionBar::showPlan(const supervisor::SweepRequest &request, const supervisor::SweepPreview &p, bool runAgain)
{
    QString text = runAgain ? tr("Run again: %1").arg(request.preset) : request.preset;
    // The model, where it is not the built-in one every sweep trains unless told otherwise.
    if (!request.configs.empty() && request.configs.front().model != kDefaultModel)
        text += tr(" of %1").arg(QString::fromStdString(request.configs.front().model));
    if (p.batchSizes > 0)
        text += tr(" at %1").arg(counted(p.batchSizes, tr("batch size"), tr("batch sizes")));
    text += QStringLiteral(", ") + counted(p.configurations, tr("configuration"), tr("configurations"));
    const QString repeats = counted(p.repeats, tr("repeat"), tr("repeats"));
    text += p.adaptive ? tr(" × at least %1").arg(repeats) : tr(" × %1").arg(repeats);
    if (p.startsChosen)
        text +=
            tr(", starts %1 (%2)")
                .arg(QString::fromStdString(supervisor::toString(p.starts)), counted(p.runs, tr("run"), tr("runs")));
    if (p.lanes > 1)
        text += tr(", on %1 devices at once").arg(p.lanes);
    // The estimate the running sweep starts from: the same runs of this host, else a guess.
    if (!p.estimate)
        text += tr(", time unknown: no run on this machine to go by yet");
    else if (p.estimate->guess)
        text += tr(", %1 (a guess from runs of other configurations or another machine)")
                    .arg(QString::fromStdString(supervisor::roundedTimeLeft(p.estimate->seconds)));
    else
        text += QStringLiteral(", ") + QString::fromStdString(supervisor::roundedTimeLeft(p.estimate->seconds));
    setPreview(text, false);
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
