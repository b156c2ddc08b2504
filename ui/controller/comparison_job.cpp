#include "controller/comparison_job.h"

#include "models/comparison_model.h"
#include "report/comparison_report.h"
#include "store/store.h"

#include <QDateTime>
#include <QFileInfo>

#include <map>
#include <memory>

namespace stepscope::ui
{
namespace
{

enum Kind { Compare, Kinds };

// The file behind `path` and the job's own: the same reader serves both.
bool sameFile(const QString &path, const QString &database)
{
    return path.isEmpty() || QFileInfo(path).absoluteFilePath() == QFileInfo(database).absoluteFilePath();
}

QString fileName(const QString &path)
{
    return QFileInfo(path).fileName();
}

// Where a side comes from, for the table's header and the report: "h200.sqlite, #2 H200 b128".
QString sideName(const QString &path, const report::Ledger &ledger)
{
    return QStringLiteral("%1, #%2 %3")
        .arg(fileName(path))
        .arg(ledger.sweep.id)
        .arg(QString::fromStdString(ledger.sweep.name));
}

// Reads through the job's reader, or through one opened read-only on `path` for this request.
class Readers
{
  public:
    Readers(const store::Reader &own, QString database) : own_(own), database_(std::move(database)) {}
    // Throws store::StoreError for a file that is not a readable Stepscope database.
    const store::Reader &of(const QString &path)
    {
        if (sameFile(path, database_))
            return own_;
        auto &slot = other_[QFileInfo(path).absoluteFilePath()];
        if (!slot)
            slot = store::Reader::open(path.toStdString());
        return *slot;
    }

  private:
    const store::Reader &own_;
    QString database_;
    std::map<QString, std::unique_ptr<store::Reader>> other_;
};

} // namespace

ComparisonJob::ComparisonJob(ComparisonModel *model, QObject *parent) : ReaderJob(Kinds, parent), model_(model)
{
    qRegisterMetaType<SweepChoice>();
    qRegisterMetaType<QList<SweepChoice>>();
}

void ComparisonJob::request(qint64 sweepA, qint64 sweepB, qint64 plannedSteps)
{
    request({database(), sweepA}, {database(), sweepB}, plannedSteps);
}

void ComparisonJob::request(ComparisonSide a, ComparisonSide b, qint64 plannedSteps)
{
    const QString database = this->database();
    if (a.path.isEmpty())
        a.path = database;
    if (b.path.isEmpty())
        b.path = database;
    post(Compare, [this, a, b, plannedSteps, database](const Context &context) -> Deliver {
        struct Result {
            report::Ledger a, b;
            ComparisonModel::Comparison comparison;
        };
        auto result = std::make_shared<Result>();
        Readers readers(context.reader, database);
        for (const auto &pair : {std::pair{&a, &result->a}, std::pair{&b, &result->b}}) {
            const ComparisonSide *side = pair.first;
            report::Ledger *ledger = pair.second;
            try {
                *ledger = report::buildLedger(readers.of(side->path), side->sweep, plannedSteps, context.cancel);
            } catch (const store::StoreError &e) {
                if (sameFile(side->path, database))
                    throw; // the open database went bad: the job's failed()
                return [this, path = side->path, message = QString::fromUtf8(e.what())] {
                    Q_EMIT unreadable(path, message);
                };
            }
        }
        if (context.cancel.cancelled())
            return {}; // a newer pair was asked for while these were built
        if (result->a.rows.empty() || result->b.rows.empty())
            return [this, a, b] { Q_EMIT empty(a.sweep, b.sweep); };
        result->comparison = ComparisonModel::compare(result->a, result->b);
        return [this, a, b, result] {
            const QString nameA = sideName(a.path, result->a), nameB = sideName(b.path, result->b);
            model_->setComparison(std::move(result->a), std::move(result->b), std::move(result->comparison), nameA,
                                  nameB);
            Q_EMIT ready(a.sweep, b.sweep);
        };
    });
}

void ComparisonJob::listSweeps(const QString &path)
{
    const QString database = this->database();
    const QString file = path.isEmpty() ? database : path;
    postStandalone([this, file, database](const Context &context) -> Deliver {
        QList<SweepChoice> choices;
        try {
            Readers readers(context.reader, database);
            for (const auto &s : readers.of(file).sweeps()) {
                const QDateTime created = QDateTime::fromString(QString::fromStdString(s.created), Qt::ISODateWithMs);
                choices.append({s.id, QStringLiteral("#%1 %2 (%3)")
                                          .arg(s.id)
                                          .arg(QString::fromStdString(s.name),
                                               created.isValid()
                                                   ? created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                                                   : QString::fromStdString(s.created))});
            }
        } catch (const store::StoreError &e) {
            if (sameFile(file, database))
                throw;
            return [this, file, message = QString::fromUtf8(e.what())] { Q_EMIT unreadable(file, message); };
        }
        return [this, file, choices] { Q_EMIT sweepsListed(file, choices); };
    });
}

void ComparisonJob::writeReport(const ComparisonReport &report, const QString &path)
{
    auto shared = std::make_shared<ComparisonReport>(report);
    postStandalone([this, shared, path](const Context &) -> Deliver {
        QString error;
        const auto format = reportFormatOf(path, &error);
        const bool ok = format && writeComparisonReport(*shared, path, *format, &error);
        return [this, ok, path, error] {
            if (ok)
                Q_EMIT reportWritten(path);
            else
                Q_EMIT reportRefused(path, error);
        };
    });
}

} // namespace stepscope::ui
