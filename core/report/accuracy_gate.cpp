// The accuracy gate: a row's losses over the first steps against the baseline's, its verdict and the
// verdict's words. Apart because it is the one check of training, not of time.
#include "report/accuracy_gate.h"

#include "report/ledger_internal.h"
#include "report/number_text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stepscope::report
{
namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

double lossTolerance(const RunConfig &config)
{
    // Loose enough for the rounding of each precision over ten SGD steps, tight enough that a
    // broken step (NaN, wrong gradients, skipped updates) stands out.
    constexpr double kFp32 = 0.005, kTf32 = 0.02, kFp16 = 0.05, kBf16 = 0.10;
    double tolerance = kFp32;
    if (config.autocast == Autocast::FP16)
        tolerance = kFp16;
    else if (config.autocast == Autocast::BF16)
        tolerance = kBf16;
    else if (config.tf32)
        tolerance = kTf32;
    // A compiled step is not the same arithmetic as eager even in fp32: inductor fuses kernels and
    // picks its own reduction order and tiling, so float sums are added in another order and round
    // differently, which ten SGD steps amplify. That is a reordering, not a lower precision, so it
    // gets TF32's allowance, the next step up from fp32.
    if (config.compile != CompileMode::None)
        tolerance = std::max(tolerance, kTf32);
    return tolerance;
}

double lossAllowance(double tolerance, double baselineLoss, double baselineFirstLoss)
{
    // Relative to the loss where it is large; once a small batch is memorised (batch 2 reaches 1e-4
    // within ten steps) two near-zero losses differ by any ratio and say nothing about training, so
    // the loss the run started from sets an absolute floor of the same tolerance.
    return tolerance * (std::abs(baselineLoss) + std::abs(baselineFirstLoss));
}

LedgerRow::Accuracy compareLosses(const std::vector<double> &losses, const std::vector<double> &baseline,
                                  double tolerance)
{
    using Verdict = LedgerRow::Accuracy::Verdict;
    LedgerRow::Accuracy a;
    a.tolerance = tolerance;
    if (losses.empty() || baseline.empty())
        return a;
    const auto finite = [](double v) { return std::isfinite(v); };
    a.finite = std::all_of(losses.begin(), losses.end(), finite);
    a.firstLoss = losses.front();
    a.lastLoss = losses.back();
    a.baselineLastLoss = baseline.back();
    for (std::size_t i = 0; i < std::min(losses.size(), baseline.size()); ++i) {
        if (!finite(losses[i]) || !finite(baseline[i]))
            continue;
        const double allowed = lossAllowance(tolerance, baseline[i], baseline.front());
        const double diff = std::abs(losses[i] - baseline[i]);
        const double share = allowed > 0 ? diff / allowed : (diff > 0 ? kInf : 0.0);
        if (a.worstStep == 0 || share > a.worstShare) {
            a.worstStep = static_cast<int>(i) + 1;
            a.worstShare = share;
            a.loss = losses[i];
            a.baselineLoss = baseline[i];
            a.allowed = allowed;
        }
    }
    // A difference is not a divergence: a step that trains at another precision takes another
    // path down. Diverged is for training that broke: a loss that is not finite, or losses that end
    // no lower than they started while the baseline's fell.
    const bool baselineFell =
        std::all_of(baseline.begin(), baseline.end(), finite) && baseline.back() < baseline.front();
    a.stalled = a.finite && baselineFell && losses.back() >= losses.front();
    a.verdict = !a.finite || a.stalled ? Verdict::Diverged : a.worstShare > 1 ? Verdict::Differs : Verdict::Ok;
    return a;
}

LedgerRow::Accuracy accuracyOf(const LedgerRow &row, const std::vector<double> &losses,
                               const std::vector<double> *baselineLosses)
{
    if (!baselineLosses) {
        LedgerRow::Accuracy a;
        a.verdict = losses.empty() ? LedgerRow::Accuracy::Verdict::NotChecked : LedgerRow::Accuracy::Verdict::Reference;
        return a;
    }
    return compareLosses(losses, *baselineLosses, lossTolerance(storedConfig(row.configJson)));
}

namespace
{

// What broke a diverged row's training, in words.
std::string leftOutReasonOf(const LedgerRow::Accuracy &accuracy)
{
    if (!accuracy.finite)
        return "a loss is not finite";
    return std::string(accuracy.lastLoss > accuracy.firstLoss ? "loss rose from " : "loss did not fall: ") +
           formatNumber("%.3g", accuracy.firstLoss) + " to " + formatNumber("%.3g", accuracy.lastLoss) +
           " while the baseline's fell to " + formatNumber("%.3g", accuracy.baselineLastLoss);
}

} // namespace

std::string differenceTextOf(const LedgerRow::Accuracy &accuracy)
{
    return "step " + std::to_string(accuracy.worstStep) + ": " + formatNumber("%.3g", accuracy.loss) + " vs " +
           formatNumber("%.3g", accuracy.baselineLoss) + ", " + formatNumber("%.2g", accuracy.allowed) + " allowed";
}

std::string accuracyText(const LedgerRow::Accuracy &accuracy)
{
    using Verdict = LedgerRow::Accuracy::Verdict;
    switch (accuracy.verdict) {
    case Verdict::NotChecked:
        return "n/a";
    case Verdict::Reference:
        return "reference";
    case Verdict::Ok:
        return "ok";
    case Verdict::Differs:
        return "differs (" + differenceTextOf(accuracy) + ")";
    case Verdict::Diverged:
        return "diverged (" + leftOutReasonOf(accuracy) + ")";
    }
    return "n/a";
}

std::string leftOutReason(const LedgerRow &row)
{
    return row.accuracy.diverged() ? "training diverged: " + leftOutReasonOf(row.accuracy) : std::string();
}

} // namespace stepscope::report
