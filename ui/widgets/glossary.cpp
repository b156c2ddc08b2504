#include "widgets/glossary.h"

#include "common/measurement_defaults.h"
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
