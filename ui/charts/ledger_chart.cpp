#include "charts/ledger_chart.h"

#include "models/ledger_model.h"

#include "charts/qcustomplot_compat.h"

#include <QTimer>

namespace stepscope::ui
{

LedgerChart::LedgerChart(QWidget *parent) : ChartWidget(parent), pending_(new QTimer(this))
{
    pending_->setSingleShot(true);
    pending_->setInterval(0);
    connect(pending_, &QTimer::timeout, this, &LedgerChart::rebuildNow);
}

void LedgerChart::setModel(LedgerModel *model)
{
    if (model_ == model)
        return;
    if (model_)
        disconnect(model_, nullptr, this, nullptr);
    model_ = model;
    if (model_) {
        // A reset is the common path (load, setLedger): rebuild at once so the chart is never stale.
        connect(model_, &QAbstractItemModel::modelReset, this, &LedgerChart::rebuildNow);
        connect(model_, &QAbstractItemModel::dataChanged, this, &LedgerChart::scheduleRebuild);
        connect(model_, &QAbstractItemModel::headerDataChanged, this, &LedgerChart::scheduleRebuild);
        connect(model_, &QAbstractItemModel::layoutChanged, this, &LedgerChart::scheduleRebuild);
        connect(model_, &QAbstractItemModel::rowsInserted, this, &LedgerChart::scheduleRebuild);
        connect(model_, &QAbstractItemModel::rowsRemoved, this, &LedgerChart::scheduleRebuild);
        connect(model_, &QObject::destroyed, this, &LedgerChart::scheduleRebuild);
    }
    rebuildNow();
}

LedgerModel *LedgerChart::model() const
{
    return model_.data();
}

void LedgerChart::rebuildNow()
{
    assertUiThread();
    pending_->stop();
    rebuild();
    requestReplot();
}

void LedgerChart::scheduleRebuild()
{
    if (!pending_->isActive())
        pending_->start();
}

} // namespace stepscope::ui
