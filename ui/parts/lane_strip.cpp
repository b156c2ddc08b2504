#include "parts/lane_strip.h"

#include "common/failure.h"
#include "controller/run_controller.h"
#include "parts/table_copy.h"

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
    table_->horizontalHeader()->setSectionResizeMode(Configuration, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(State, QHeaderView::Stretch);
    table_->setToolTip(tr("One timed process per device at a time; the runs go to whichever device comes free, and "
                          "the repeats of a configuration stay on devices of one model. The chart below draws "
                          "each lane's run in its own colour; click a lane in its legend to shade that lane's "
                          "steady window."));
    installTableCopy(table_); // as every table of the dashboard: TSV and Markdown to the clipboard
    hide();                   // until a sweep names lanes
    connect(controller, &RunController::sweepStarted, this, [this] {
        table_->setRowCount(0);
        hide();
    });
    connect(controller, &RunController::sweepEvent, this, [this](const supervisor::SweepEvent &e) {
        using namespace supervisor::event;
        std::visit(supervisor::Overloaded{
                       [this](const RunStarted &x) {
                           if (x.lane.index >= 0) // only a sweep over several devices names lanes
                               onRunOnLane(x.runId, x.lane.index, x.lane.label, x.config, x.index, x.total);
                       },
                       [this](const FirstStep &x) { onFirstStep(x.runId, x.seconds); },
                       [this](const RunFinished &x) { onRunFinished(x.runId, x.status, x.failure); },
                       [](const auto &) {},
                   },
                   e);
    });
}

void LaneStrip::onRunOnLane(qint64 runId, int lane, const QString &label, const QString &config, int index, int total)
{
    Q_UNUSED(lane)
    // A row per device, found by its name: a data-parallel run ("cuda:0+cuda:1") fills the row of
    // every device it holds.
    const QStringList devices = label.split(QLatin1Char('+'));
    for (const QString &device : devices) {
        int row = 0;
        while (row < table_->rowCount() && table_->item(row, Lane) && table_->item(row, Lane)->text() != device)
            ++row;
        if (row == table_->rowCount())
            table_->setRowCount(row + 1);
        const QString now = devices.size() > 1 ? tr("starting, with %1").arg(label) : tr("starting");
        const QStringList texts{device, tr("%1 of %2").arg(index + 1).arg(total), config, now};
        for (int c = 0; c < ColumnCount; ++c) {
            auto *item = new QTableWidgetItem(texts[c]);
            item->setData(kRunIdRole, runId);
            table_->setItem(row, c, item);
        }
    }
    // Rows fit their lanes: two to eight lines, no scrolling for the usual host.
    table_->setFixedHeight(table_->horizontalHeader()->height() + 2 * table_->frameWidth() +
                           table_->rowCount() * table_->verticalHeader()->defaultSectionSize());
    table_->resizeColumnToContents(Lane);
    table_->resizeColumnToContents(Run);
    show();
}

QList<int> LaneStrip::rowsOf(qint64 runId) const
{
    QList<int> rows;
    for (int r = 0; r < table_->rowCount(); ++r)
        if (const auto *item = table_->item(r, Lane); item && item->data(kRunIdRole).toLongLong() == runId)
            rows << r;
    return rows;
}

void LaneStrip::onFirstStep(qint64 runId, double seconds)
{
    for (const int r : rowsOf(runId))
        table_->item(r, State)->setText(tr("first step %1 s, measuring").arg(seconds, 0, 'f', 2));
}

void LaneStrip::onRunFinished(qint64 runId, RunStatus status, const std::optional<Failure> &failure)
{
    QString text = QString::fromUtf8(toString(status).data());
    if (failure && status != RunStatus::Complete)
        text += QString(" [%1]").arg(QString::fromUtf8(toString(failure->category).data()));
    for (const int r : rowsOf(runId))
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
