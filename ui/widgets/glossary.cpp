#include "widgets/glossary.h"

#include "common/measurement_defaults.h"
#include "profile/why.h"
#include "report/ledger.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

QString percent(double share)
{
    return QString::number(share * 100, 'f', 0) + QLatin1Char('%');
}

} // namespace

QList<GlossaryEntry> glossaryEntries()
{
    // The thresholds come from where the flags are computed (common/measurement_defaults.h), so the
    // words cannot drift from the figures.
    const QString warn = percent(kNoiseWarn), unreliable = percent(kNoiseUnreliable);
    return {
        {GlossaryDialog::tr("noisy"),
         GlossaryDialog::tr(
             "A steady-state figure whose spread is %1 or more of its median (and under %2): the "
             "interquartile range of its steady steps over their median, or the range of its "
             "processes' medians (highest minus lowest) over the figure, whichever is larger. A first step is flagged "
             "by the same rule over its cold processes (their whole range when there are fewer than "
             "four).")
             .arg(warn, unreliable)},
        {GlossaryDialog::tr("unreliable"),
         GlossaryDialog::tr("The same spread at %1 or more of the median, or one that cannot be judged. The "
                            "recommendation names such rows, and a row without a steady state, as unreliable.")
             .arg(unreliable)},
        {GlossaryDialog::tr("n.s."),
         GlossaryDialog::tr("No significant difference: the 95% confidence interval of the row's steady step time "
                            "over the baseline's contains 1. The interval comes from a bootstrap that resamples "
                            "cold processes, then steps within them. \"%1\": one process on a side, so no "
                            "interval; run more repeats.")
             .arg(QString::fromLatin1(report::kNoIntervalShort))},
        {GlossaryDialog::tr("machine cold"),
         GlossaryDialog::tr("Beside a first step: no warm-up process ran, and this row had the sweep's first "
                            "process, whose first step also paid for the machine's caches (CUDA JIT, cuDNN "
                            "engines, library files). \"machine cold 1/3\": one of its three processes. Where each "
                            "run had caches of its own, it reads \"first process\". Tick \"Discard one warm-up "
                            "process first\" to avoid it.")},
        {GlossaryDialog::tr("first process"),
         GlossaryDialog::tr("Beside a first step, where each run had caches of its own: no warm-up process ran and "
                            "this row had the sweep's first process, so its first step also paid for what no run's "
                            "caches hold (the driver's start, the libraries' files read from disk). \"first "
                            "process 1/3\": one of its three processes.")},
        {GlossaryDialog::tr("fresh"),
         GlossaryDialog::tr("A start state: the run starts with every cache empty (CUDA JIT, cuDNN, Triton, "
                            "inductor), as on a new machine or container. Its first step is the most a first step "
                            "costs.")},
        {GlossaryDialog::tr("shipped"),
         GlossaryDialog::tr("A start state: a fresh machine given the configuration's saved caches (torch.compile's "
                            "mega-cache, the CUDA JIT folder), as one built from an image that ships them.")},
        {GlossaryDialog::tr("again"),
         GlossaryDialog::tr("A start state: the caches a run of the same configuration left on this machine, as "
                            "when you train again here. The ledger's \"for …\" switch picks the start state the "
                            "first steps, break-evens and recommendation are for.")},
        {GlossaryDialog::tr("steady window"),
         GlossaryDialog::tr("The steps of a run after its warm-up: from the first block of steps that settles at the "
                            "run's late level and mostly stays there, to the last step. Step 1 is never in it. The "
                            "steady step time is its median; \"no steady state\" when too few steps ran or the "
                            "last ones still drift.")},
        {GlossaryDialog::tr("break-even"),
         GlossaryDialog::tr("The step count from which a row's total time, first step + (n - 1) × steady step, is "
                            "below the baseline's: 1 + (its first step - the baseline's) / (the baseline's steady "
                            "step - its steady step). \"never\": not faster per step; 1 or less: it pays from the "
                            "first step.")},
        {GlossaryDialog::tr("launch-bound"),
         GlossaryDialog::tr("On the Why page, from a run's profile: the GPU is busy under %1 of the steady step and "
                            "waits for the CPU that launches its work (Python, dispatch, kernel launches). CUDA "
                            "graphs, reduce-overhead, fused SGD and pinning help; a bigger batch hides it. "
                            "\"partly launch-bound\": busy from %1 to under %2.")
             .arg(percent(profile::kLaunchBoundBelow), percent(profile::kGpuBoundFrom))},
        {GlossaryDialog::tr("GPU-bound"),
         GlossaryDialog::tr("On the Why page: the GPU is busy %1 or more of the steady step, so its own work sets "
                            "the pace: TF32, bf16, channels_last and fusion help; graphs and pinning do not.")
             .arg(percent(profile::kGpuBoundFrom))},
        {GlossaryDialog::tr("% of peak"),
         GlossaryDialog::tr("On the Why page: the TFLOP/s a steady step achieves (the training FLOPs of one step, as "
                            "torch.utils.flop_counter counted them for the run's model, or ResNet18's layers, over the "
                            "steady step time) as a share of the GPU's dense peak for "
                            "the precision its convolutions and matmuls run in (fp32, TF32, bf16, fp16), from the "
                            "vendor's data sheet. None for a GPU the table lacks or the CPU.")},
        {GlossaryDialog::tr("deciding crossing"),
         GlossaryDialog::tr(
             "On the break-even chart: the step count where the recommended configuration's total "
             "time (first step + (n - 1) × steady step) crosses the runner-up's. On one side of it "
             "the runner-up finishes first, on the other the recommended one; the planned run N "
             "lies on the recommended side. None without a runner-up, or when one leads from the first step.")},
        {GlossaryDialog::tr("Pareto front"),
         GlossaryDialog::tr("On the first step vs steady chart: the rows no other row beats on both counts (none "
                            "has a first step and a steady step at least as short, one of them shorter). Rows whose "
                            "losses diverged are left out. Which of them is best depends on the planned run.")},
    };
}

GlossaryDialog::GlossaryDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Glossary"));
    QString html;
    for (const GlossaryEntry &e : glossaryEntries()) {
        html += QStringLiteral("<p><b>%1</b><br>%2</p>").arg(e.term.toHtmlEscaped(), e.meaning.toHtmlEscaped());
        text_ += e.term + QLatin1String(": ") + e.meaning + QLatin1Char('\n');
    }
    auto *browser = new QTextBrowser;
    browser->setHtml(html);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(browser);
    layout->addWidget(buttons);
    resize(560, 520);
}

QString GlossaryDialog::text() const
{
    return text_;
}

} // namespace stepscope::ui
