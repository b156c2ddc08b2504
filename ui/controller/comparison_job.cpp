#include "controller/comparison_job.h"

#include "models/comparison_model.h"

#include <memory>

namespace stepscope::ui
{

ComparisonJob::ComparisonJob(ComparisonModel *model, QObject *parent) : ReaderJob(1, parent), model_(model) {}

void ComparisonJob::request(qint64 sweepA, qint64 sweepB, qint64 plannedSteps)
{
    post(supersede(0),
         [this, sweepA, sweepB, plannedSteps](const store::Reader &reader, const Deliver &) -> std::function<void()> {
             struct Result {
                 report::Ledger a, b;
                 std::vector<ComparisonModel::Row> rows;
             };
             auto result = std::make_shared<Result>();
             result->a = report::buildLedger(reader, sweepA, plannedSteps);
             result->b = report::buildLedger(reader, sweepB, plannedSteps);
             if (result->a.rows.empty() || result->b.rows.empty())
                 return [this, sweepA, sweepB] { Q_EMIT empty(sweepA, sweepB); };
             result->rows = ComparisonModel::compare(result->a, result->b);
             return [this, sweepA, sweepB, result] {
                 model_->setComparison(std::move(result->a), std::move(result->b), std::move(result->rows));
                 Q_EMIT ready(sweepA, sweepB);
             };
         });
}

} // namespace stepscope::ui
