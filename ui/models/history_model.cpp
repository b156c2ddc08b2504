#include "models/history_model.h"

#include "models/status_colors.h"
#include "report/ledger_rows.h"
#include "report/run_summary.h"
#include "report/sweep_status.h"
#include "stats/stats.h"

#include <QBrush>
#include <QDateTime>

#include <algorithm>
#include <map>

namespace stepscope::ui
{
namespace
{

// Child indexes carry their sweep's row (of the tree, not of sweeps_) + 1; sweep indexes carry 0.
constexpr quintptr kSweepLevel = 0;

QString knobsOf(const std::string &configName)
{
    const auto space = configName.rfind(' ');
    return QString::fromStdString(space == std::string::npos ? configName : configName.substr(space + 1));
}

QDateTime parseTime(const std::string &iso)
{
    if (iso.empty())
        return {};
    return QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs);
}

QString localTime(const std::string &iso)
{
    const QDateTime t = parseTime(iso);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QString();
}

QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

QColor statusColor(RunStatus status)
{
    if (status == RunStatus::Failed)
        return failureColor();
    if (status == RunStatus::Cancelled || status == RunStatus::Interrupted)
        return warningColor();
    return {};
}

// A sweep that ran to its end with failed runs is coloured as failed by its caller (sweepHadFailures).
QColor statusColor(store::SweepStatus status)
{
    if (status == store::SweepStatus::Cancelled || status == store::SweepStatus::Interrupted)
        return warningColor();
    return {};
}

} // namespace

HistoryModel::HistoryModel(QObject *parent) : QAbstractItemModel(parent) {}

HistoryModel::Sweeps HistoryModel::read(const store::Reader &reader)
{
    Sweeps sweeps;
    for (auto &record : reader.sweeps()) {
        Sweep sweep;
        sweep.record = std::move(record);
        sweep.runs = reader.runs(sweep.record.id);
        readBatches(sweep); // parsed here, on the worker, not per paint
        // A cheap stand-in for the ledger's pooled figure (no bootstrap, no accuracy gate): the
        // median over repeats of each run's steady median (its stored summary), best configuration first.
        std::map<std::string, std::vector<double>> perConfig;
        for (const auto &run : sweep.runs)
            if (run.status == RunStatus::Complete)
                if (const auto steady = report::summaryOf(reader, run).medianMs)
                    perConfig[run.configName].push_back(*steady);
        for (const auto &[name, medians] : perConfig) {
            const double m = stats::median(medians);
            if (!sweep.bestSteadyMs || m < *sweep.bestSteadyMs) {
                sweep.bestSteadyMs = m;
                sweep.bestLabel = knobsOf(name);
                // A batch scan's best step is of one batch: say which.
                if (sweep.batches.size() > 1)
                    for (std::size_t i = 0; i < sweep.runs.size(); ++i)
                        if (sweep.runs[i].configName == name) {
                            sweep.bestLabel += tr(", batch %1").arg(sweep.runBatches[i]);
                            break;
                        }
            }
        }
        sweeps.push_back(std::move(sweep));
    }
    return sweeps;
}

void HistoryModel::readBatches(Sweep &sweep)
{
    sweep.runBatches.clear();
    sweep.batches.clear();
    for (const auto &run : sweep.runs) {
        const int b = run.configJson.empty() ? 0 : report::storedConfig(run.configJson).batch;
        sweep.runBatches.push_back(b);
        if (b > 0 && std::find(sweep.batches.begin(), sweep.batches.end(), b) == sweep.batches.end())
            sweep.batches.push_back(b);
    }
    std::sort(sweep.batches.begin(), sweep.batches.end());
}

QString HistoryModel::runText(const Sweep &sweep, std::size_t i) const
{
    const store::RunRecord &run = sweep.runs[i];
    QString text = tr("repeat %1").arg(run.repeatIndex + 1);
    if (i < sweep.runBatches.size() && sweep.runBatches[i] > 0)
        text += tr(", batch %1").arg(sweep.runBatches[i]);
    if (run.caches != store::StartState::Unrecorded)
        text += QStringLiteral(", ") + QString::fromLatin1(store::toString(run.caches).data(), qsizetype(store::toString(run.caches).size()));
    return text;
}

void HistoryModel::setSweeps(Sweeps sweeps)
{
    beginResetModel();
    sweeps_ = std::move(sweeps);
    for (Sweep &sweep : sweeps_)
        if (sweep.runBatches.size() != sweep.runs.size())
            readBatches(sweep); // built by hand (tests): read them now
    // A hidden sweep no longer in the file was deleted: its id may be given to the next new sweep.
    QSet<qint64> present;
    for (const Sweep &sweep : sweeps_)
        present.insert(sweep.record.id);
    hidden_.intersect(present);
    pickShown();
    endResetModel();
}

void HistoryModel::pickShown()
{
    shown_.clear();
    for (std::size_t i = 0; i < sweeps_.size(); ++i)
        if (!hidden_.contains(sweeps_[i].record.id))
            shown_.push_back(i);
}

// A reset, not a row removal: run indexes carry their sweep's row, which the rows after it would change.
void HistoryModel::hideSweep(qint64 sweepId)
{
    if (hidden_.contains(sweepId))
        return;
    beginResetModel();
    hidden_.insert(sweepId);
    pickShown();
    endResetModel();
}

void HistoryModel::showSweep(qint64 sweepId)
{
    if (!hidden_.contains(sweepId))
        return;
    beginResetModel();
    hidden_.remove(sweepId);
    pickShown();
    endResetModel();
}

void HistoryModel::load(const store::Reader &reader)
{
    setSweeps(read(reader));
}

void HistoryModel::clear()
{
    beginResetModel();
    sweeps_.clear();
    shown_.clear();
    hidden_.clear(); // ids of another file
    endResetModel();
}

qint64 HistoryModel::sweepId(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return 0;
    if (index.internalId() == kSweepLevel)
        return shown(static_cast<std::size_t>(index.row())).record.id;
    return shown(index.internalId() - 1).record.id;
}

qint64 HistoryModel::runId(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() == kSweepLevel)
        return 0;
    return shown(index.internalId() - 1).runs[static_cast<std::size_t>(index.row())].id;
}

QModelIndex HistoryModel::indexOfSweep(qint64 sweepId) const
{
    for (std::size_t row = 0; row < shown_.size(); ++row)
        if (shown(row).record.id == sweepId)
            return createIndex(static_cast<int>(row), 0, kSweepLevel);
    return {};
}

QModelIndex HistoryModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kSweepLevel);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex HistoryModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kSweepLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kSweepLevel);
}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(shown_.size());
    if (parent.internalId() != kSweepLevel || parent.column() != 0)
        return 0;
    return static_cast<int>(shown(static_cast<std::size_t>(parent.row())).runs.size());
}

int HistoryModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kSweepLevel)
        return sweepData(shown(static_cast<std::size_t>(index.row())), index.column(), role);
    const Sweep &sweep = shown(index.internalId() - 1);
    const auto row = static_cast<std::size_t>(index.row());
    if (index.column() == Preset && role == Qt::DisplayRole)
        return runText(sweep, row);
    if (role == FilterRole)
        return runData(sweep.runs[row], index.column(), role).toString() + QLatin1Char(' ') + runText(sweep, row);
    return runData(sweep.runs[row], index.column(), role);
}

QVariant HistoryModel::sweepData(const Sweep &sweep, int column, int role) const
{
    const auto &s = sweep.record;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Name:
            return QString::fromStdString(s.name);
        case Id:
            return static_cast<qint64>(s.id);
        case Created:
            return localTime(s.created);
        case Preset: {
            if (sweep.batches.size() < 2)
                return QString::fromStdString(s.preset);
            QStringList batches;
            for (const int b : sweep.batches)
                batches << QString::number(b);
            return tr("%1, batches %2").arg(QString::fromStdString(s.preset), batches.join(QStringLiteral(", ")));
        }
        case Status:
            return QString::fromStdString(report::sweepStatusText(s, sweep.runs));
        case Runs:
            return static_cast<int>(sweep.runs.size());
        case Best:
            return sweep.bestSteadyMs
                       ? QStringLiteral("%1 ms (%2)").arg(QString::number(*sweep.bestSteadyMs, 'f', 2), sweep.bestLabel)
                       : QStringLiteral("-");
        default:
            return {};
        }
    case SortRole:
        switch (column) {
        case Created:
            return parseTime(s.created);
        case Runs:
            return static_cast<int>(sweep.runs.size());
        case Best:
            return sweep.bestSteadyMs ? QVariant(*sweep.bestSteadyMs) : QVariant();
        default:
            return sweepData(sweep, column, Qt::DisplayRole);
        }
    case FilterRole:
        return QStringList{QString::number(s.id),
                           QString::fromStdString(s.name),
                           QString::fromStdString(s.preset),
                           QString::fromStdString(report::sweepStatusText(s, sweep.runs)),
                           QString::fromStdString(s.created),
                           QString::fromStdString(s.settingsJson)}
            .join(QLatin1Char(' '));
    case SweepIdRole:
        return static_cast<qint64>(s.id);
    case RunIdRole:
        return qint64(0);
    case Qt::ToolTipRole:
        if (column == Created)
            return tr("%1 (stored as UTC %2)").arg(localTime(s.created), QString::fromStdString(s.created));
        if (column == Name)
            return tr("Sweep %1: %2. Rename it with Rename… (F2).").arg(s.id).arg(QString::fromStdString(s.name));
        return {};
    case Qt::ForegroundRole: {
        // A sweep that finished with failed runs reads as failed, as its words say.
        const QColor c = report::sweepHadFailures(s, sweep.runs) ? failureColor() : statusColor(s.status);
        return column == Status && c.isValid() ? QVariant(QBrush(c)) : QVariant();
    }
    default:
        return {};
    }
}

QVariant HistoryModel::runData(const store::RunRecord &run, int column, int role) const
{
    const QString status = fromView(toString(run.status));
    const QString category = run.category ? fromView(toString(*run.category)) : QString();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Name:
            return knobsOf(run.configName);
        case Id:
            return static_cast<qint64>(run.id);
        case Created:
            return localTime(run.started);
        case Preset:
            return tr("repeat %1").arg(run.repeatIndex + 1);
        case Status:
            return status;
        case Runs:
            return category;
        case Best:
            return static_cast<qint64>(run.stepCount);
        default:
            return {};
        }
    case SortRole:
        switch (column) {
        case Created:
            return parseTime(run.started);
        case Preset:
            return static_cast<qint64>(run.repeatIndex);
        case Best:
            return static_cast<qint64>(run.stepCount);
        default:
            return runData(run, column, Qt::DisplayRole);
        }
    case FilterRole:
        return QStringList{QString::fromStdString(run.configName), status, category,
                           QString::fromStdString(run.message)}
            .join(QLatin1Char(' '));
    case SweepIdRole:
        return static_cast<qint64>(run.sweepId);
    case RunIdRole:
        return static_cast<qint64>(run.id);
    case Qt::ToolTipRole:
        if (column == Name)
            return QString::fromStdString(run.configName);
        if ((column == Status || column == Runs) && !run.message.empty())
            return QString::fromStdString(run.message);
        return {};
    case Qt::ForegroundRole: {
        const QColor c = statusColor(run.status);
        return (column == Status || column == Runs) && c.isValid() ? QVariant(QBrush(c)) : QVariant();
    }
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Sweep / configuration");
    case Id:
        return tr("Id");
    case Created:
        return tr("Created / started");
    case Preset:
        return tr("Preset / run");
    case Status:
        return tr("Status");
    case Runs:
        return tr("Runs / failure");
    case Best:
        return tr("Best steady / steps");
    default:
        return {};
    }
}

} // namespace stepscope::ui
