#pragma once
// Two sweeps compared off the UI thread: both ledgers and the ratio of each configuration's
// steady medians with its bootstrap interval. Each side may come from its own file: the open
// database's sweeps are read through its reader thread's reader (ReaderPool), another file is
// opened read-only there for the comparison alone (the dashboard keeps recording into its own).
// A request supersedes the one before; the ComparisonModel adopts the result on the UI thread,
// then the job says so.
#include "controller/reader_job.h"

#include <QList>
#include <QMetaType>

namespace stepscope::ui
{

class ComparisonModel;
struct ComparisonReport;

// One side of a comparison: a sweep of a database file (empty: the job's database).
struct ComparisonSide {
    QString path;
    qint64 sweep = 0;
};

// A sweep a file holds, as a picker lists it.
struct SweepChoice {
    qint64 id = 0;
    QString text; // "#2 H200 ledger b128 (2026-11-30)"
};

class ComparisonJob : public ReaderJob
{
    Q_OBJECT
  public:
    // The job fills `model`, which must outlive it.
    explicit ComparisonJob(ComparisonModel *model, QObject *parent = nullptr);

    void request(ComparisonSide a, ComparisonSide b, qint64 plannedSteps);
    // Both sides from the job's database.
    void request(qint64 sweepA, qint64 sweepB, qint64 plannedSteps);
    // Reads which sweeps `path` holds (empty: the job's database): sweepsListed() or unreadable().
    void listSweeps(const QString &path);
    // Writes the report (format from the suffix, ReportJob::formatOf) on the reader thread:
    // reportWritten() or reportRefused(). Reports never supersede each other.
    void writeReport(const ComparisonReport &report, const QString &path);

  Q_SIGNALS:
    // The model holds the comparison of A and B.
    void ready(qint64 sweepA, qint64 sweepB);
    // One of the two has no runs (or does not exist): nothing to compare.
    void empty(qint64 sweepA, qint64 sweepB);
    void sweepsListed(const QString &path, const QList<SweepChoice> &sweeps);
    // `path` is not a readable Stepscope database (missing, corrupt, foreign, newer); untouched.
    void unreadable(const QString &path, const QString &message);
    void reportWritten(const QString &path);
    void reportRefused(const QString &path, const QString &error);

  private:
    ComparisonModel *model_;
};

} // namespace stepscope::ui

Q_DECLARE_METATYPE(stepscope::ui::SweepChoice)
