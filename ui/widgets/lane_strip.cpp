#include "widgets/lane_strip.h"

#include "common/failure.h"
#include "controller/run_controller.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{
enum Column { Lane, Run, Configuration, State, ColumnCount };
constexpr int kRunIdRole = Qt::UserRole + 1;
} // namespace

LaneStrip::LaneStrip(RunController *controller, QWidget *parent) : QWidget(parent), table_(new QTableWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table_);
    table_->setColumnCount(ColumnCount);
    table_->setHorizontalHeaderLabels({tr("Lane"), tr("Run"), tr("Configuration"), tr("Now")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(Configuration, QHeaderView::Stretch);
    table_->setToolTip(tr("One timed process per device at a time; the runs go to whichever device comes free, and "
                          "the repeats of a configuration stay on devices of one model. The chart below follows "
                          "the run started last."));
    hide(); // until a sweep names lanes
    connect(controller, &RunController::sweepStarted, this, [this] {
        table_->setRowCount(0);
        hide();
    });
    connect(controller, &RunController::runOnLane, this, &LaneStrip::onRunOnLane);
    connect(controller, &RunController::firstStep, this, &LaneStrip::onFirstStep);
    connect(controller, &RunController::runFinished, this, &LaneStrip::onRunFinished);
}

void LaneStrip::onRunOnLane(qint64 runId, int lane, const QString &label, const QString &config, int index, int total)
{
    if (lane >= table_->rowCount())
        table_->setRowCount(lane + 1);
    const QStringList texts{label, tr("%1 of %2").arg(index + 1).arg(total), config, tr("starting")};
    for (int c = 0; c < ColumnCount; ++c) {
        auto *item = new QTableWidgetItem(texts[c]);
        item->setData(kRunIdRole, runId);
        table_->setItem(lane, c, item);
    }
    // Rows fit their lanes: two to eight lines, no scrolling for the usual host.
    table_->setFixedHeight(table_->horizontalHeader()->height() + 2 * table_->frameWidth() +
                           table_->rowCount() * table_->verticalHeader()->defaultSectionSize());
    table_->resizeColumnToContents(Lane);
    table_->resizeColumnToContents(Run);
    show();
}

int LaneStrip::rowOf(qint64 runId) const
{
    for (int r = 0; r < table_->rowCount(); ++r)
        if (const auto *item = table_->item(r, Lane); item && item->data(kRunIdRole).toLongLong() == runId)
            return r;
    return -1;
}

void LaneStrip::onFirstStep(qint64 runId, double seconds)
{
    if (const int r = rowOf(runId); r >= 0)
        table_->item(r, State)->setText(tr("first step %1 s, measuring").arg(seconds, 0, 'f', 2));
}

void LaneStrip::onRunFinished(qint64 runId, RunStatus status, const std::optional<Failure> &failure)
{
    const int r = rowOf(runId);
    if (r < 0)
        return;
    QString text = QString::fromUtf8(toString(status).data());
    if (failure && status != RunStatus::Complete)
        text += QString(" [%1]").arg(QString::fromUtf8(toString(failure->category).data()));
    table_->item(r, State)->setText(tr("%1; waiting for the next run").arg(text));
}

QString LaneStrip::rowText(int row) const
{
    QStringList cells;
    for (int c = 0; c < ColumnCount; ++c)
        if (const auto *item = table_->item(row, c))
            cells << item->text();
    return cells.join(QStringLiteral(" | "));
}

} // namespace stepscope::ui
