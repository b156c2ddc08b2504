#include "models/why_model.h"

#include "models/ledger_model.h"

#include <cmath>

namespace stepscope::ui
{

WhyModel::WhyModel(LedgerModel *ledger, QObject *parent) : QAbstractTableModel(parent), ledger_(ledger)
{
    connect(ledger, &QAbstractItemModel::modelReset, this, &WhyModel::refresh);
    connect(ledger, &QAbstractItemModel::dataChanged, this, &WhyModel::refresh);
    refresh();
}

const report::Ledger &WhyModel::ledger() const
{
    static const report::Ledger empty;
    return ledger_ ? ledger_->ledger() : empty;
}

void WhyModel::refresh()
{
    beginResetModel();
    rows_ = report::whyRows(ledger());
    endResetModel();
}

QString WhyModel::text() const
{
    return QString::fromStdString(report::whyText(ledger()));
}

int WhyModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int WhyModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant WhyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == Compute)
        return tr("The TFLOP/s of the steady step and its share of the GPU's dense peak for the precision the "
                  "row's convolutions run in, named in each cell: fp32 runs on the CUDA cores, TF32 and bf16 on "
                  "the tensor cores, whose peaks are several times higher, so shares of different precisions "
                  "are not one scale.");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Configuration:
        return tr("Configuration");
    case Verdict:
        return tr("Verdict");
    case Busy:
        return tr("Busy / step");
    case Kernels:
        return tr("Kernels / step");
    case Launches:
        return tr("Launch CPU");
    case Compute:
        return tr("Compute");
    case TopKernel:
        return tr("Top kernel");
    }
    return {};
}

QVariant WhyModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const report::WhyRow &w = rows_[static_cast<std::size_t>(index.row())];
    const report::LedgerRow &r = ledger().rows[w.row];
    const profile::ProfileSummary *p = w.profile;
    if (role == Qt::ToolTipRole) {
        if (index.column() == TopKernel && p && !p->kernels.empty())
            return QString::fromStdString(p->kernels.front().name);
        if (index.column() == Configuration)
            return QString::fromStdString(r.configName);
        if ((index.column() == Verdict || index.column() == Busy) && w.verdict)
            return tr("Busy is %1 over the %2; the profile ran %3 steps after the timed ones.%4")
                .arg(p->device == "cpu" ? tr("the time inside ATen ops (a CPU run: no GPU)")
                                        : tr("the profile's GPU activity (kernels, copies)"))
                .arg(w.verdict->againstTimed ? tr("timed steady step") : tr("profiled step (no steady figure)"))
                .arg(p->steps)
                .arg(index.column() == Busy
                         ? QStringLiteral("\n") + QString::fromStdString(profile::busyShareText(
                                                      p->busyMs, w.verdict->stepMs, p->device == "cpu"))
                         : QString());
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Busy && index.column() <= Compute)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Configuration:
        return QString::fromStdString(r.label);
    case Verdict:
        return w.verdict ? QString::fromStdString(w.verdict->text)
                         : tr("no profile: %1").arg(QString::fromStdString(w.problem));
    case Busy:
        // "CPU" names a CPU row's figure: its busy time is ATen's, not a GPU's.
        return w.verdict ? QStringLiteral("%1%2 / %3 ms (%4)")
                               .arg(p->device == "cpu" ? tr("CPU ") : QString())
                               .arg(p->busyMs, 0, 'f', 2)
                               .arg(w.verdict->stepMs, 0, 'f', 2)
                               .arg(QString::fromStdString(
                                   profile::busyShareText(p->busyMs, w.verdict->stepMs, p->device == "cpu")))
                         : QString();
    case Kernels:
        return p ? QString::number(std::lround(p->kernelsPerStep)) : QString();
    case Launches:
        return p && p->device != "cpu"
                   ? tr("%1 launches, %2 ms").arg(std::lround(p->launchesPerStep)).arg(p->launchCpuMs, 0, 'f', 2)
                   : QString();
    case Compute:
        return QString::fromStdString(report::tflopsText(r.compute));
    case TopKernel:
        if (!p || p->kernels.empty())
            return QString();
        return tr("%1 ms  %2")
            .arg(p->kernels.front().msPerStep, 0, 'f', 3)
            .arg(QString::fromStdString(p->kernels.front().name).left(60));
    }
    return {};
}

} // namespace stepscope::ui
