#include "models/run_detail.h"
#include "report/why_table.h"

#include "models/figure_text.h"
#include "models/status_colors.h"

#include "common/failure.h"
#include "report/cache_text.h"
#include "report/memory_text.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace stepscope::ui
{
namespace
{

QString tr(const char *text)
{
    return QCoreApplication::translate("RunDetail", text);
}

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}

QString esc(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QJsonObject objectOf(const std::string &json)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
}

void factRow(QString &html, const QString &key, const QString &value)
{
    if (!value.isEmpty())
        html += QStringLiteral("<tr><th align=\"left\" style=\"padding-right:12px;font-weight:normal\">%1</th>"
                               "<td>%2</td></tr>\n")
                    .arg(esc(key), value);
}

QString cacheMeaning(const QString &state)
{
    if (state == QLatin1String("cold"))
        return tr("cold: fresh inductor and Triton caches for this run (removed after it), so the first step pays "
                  "the whole compile");
    if (state == QLatin1String("warm"))
        return tr("warm: kept caches, filled by a priming run of the same configuration, as a second training run "
                  "on this machine would find them");
    return state;
}

void cacheDirs(QString &html, const store::RunRecord &run)
{
    const QJsonObject dirs = objectOf(run.cacheDirs);
    if (dirs.isEmpty())
        return;
    html += QStringLiteral("<p><b>%1</b></p>\n<table cellspacing=\"0\" cellpadding=\"2\">\n")
                .arg(esc(tr("Cache directories")));
    for (auto it = dirs.begin(); it != dirs.end(); ++it) {
        const QString dir = it.value().toString();
        // Cold caches are removed after their run: say so rather than leave a dead path unexplained.
        const QString note =
            QFileInfo::exists(dir) ? QString() : QStringLiteral(" <i>(%1)</i>").arg(esc(tr("removed")));
        html +=
            QStringLiteral("<tr><td style=\"padding-right:12px\"><code>%1</code></td><td><code>%2</code>%3</td></tr>\n")
                .arg(esc(it.key()), esc(dir), note);
    }
    html += QStringLiteral("</table>\n");
}

void phases(QString &html, const CompileRecord &c)
{
    if (c.phases.isEmpty())
        return;
    html += QStringLiteral("<p><b>%1</b></p>\n<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n"
                           "<tr><th align=\"left\">%2</th><th align=\"right\">%3</th></tr>\n")
                .arg(esc(tr("Compile time by phase")), esc(tr("phase")), esc(tr("time")));
    for (const auto &[key, s] : c.phases)
        html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td></tr>\n")
                    .arg(esc(compilePhaseName(key)), esc(formatSecondsLabel(s)));
    html += QStringLiteral("</table>\n<p style=\"color:#555\">%1</p>\n")
                .arg(esc(tr("Phases as torch's own timers separate them; some nest (kernel compile wait is inside the "
                            "inductor phases), so they need not add up to the compile time.")));
}

void list(QString &html, const QString &title, const QStringList &items)
{
    if (items.isEmpty())
        return;
    html += QStringLiteral("<p><b>%1</b></p>\n<ol>\n").arg(esc(title));
    for (const QString &item : items)
        html += QStringLiteral("<li>%1</li>\n").arg(esc(item));
    html += QStringLiteral("</ol>\n");
}

QString notCompiledBox(const QString &text, const store::RunRecord &run)
{
    const QString why =
        run.status == RunStatus::Complete
            ? tr("The run finished, but what it measured is not the configuration it is named after.")
            : tr("The run counts as failed (compile-failed): its steps are left out of the ledger's figures, "
                 "because they measure eager PyTorch, not torch.compile.");
    // A one-cell table: QTextBrowser draws table backgrounds, not div ones.
    return QStringLiteral("<table width=\"100%\" cellpadding=\"8\" cellspacing=\"0\" border=\"1\" bgcolor=\"%1\">"
                          "<tr><td><span style=\"color:%2;font-size:large\"><b>%3</b></span><br>%4</td></tr></table>\n")
        .arg(failureBackground().name(), failureColor().name(), esc(text), esc(why));
}

} // namespace

bool runIsCompiled(const store::RunRecord &run)
{
    const QString mode = objectOf(run.configJson).value(QLatin1String("compile")).toString();
    return (!mode.isEmpty() && mode != QLatin1String("none")) || !run.compileJson.empty();
}

QString runChoiceText(const store::RunRecord &run)
{
    return tr("#%1, repeat %2, %3")
        .arg(run.id)
        .arg(run.repeatIndex + 1)
        .arg(QString::fromUtf8(toString(run.status).data()));
}

QString machineCachesHtml(const store::RunRecord &run)
{
    const std::vector<std::string> lines = report::runCacheLines(run);
    if (lines.empty())
        return {};
    QString html = QStringLiteral("<h3>%1</h3>\n<p>%2</p>\n<ul>\n")
                       .arg(esc(tr("Machine caches")), esc(QString::fromStdString(lines.front())));
    for (std::size_t i = 1; i < lines.size(); ++i)
        html += QStringLiteral("<li>%1</li>\n").arg(esc(QString::fromStdString(lines[i])));
    return html + QStringLiteral("</ul>\n");
}

QString compileSectionHtml(const store::RunRecord &run)
{
    if (!runIsCompiled(run))
        return {};
    const CompileRecord c = parseCompileRecord(run.compileJson);
    QString html = QStringLiteral("<h3>torch.compile</h3>\n");
    if (!c.present && run.compileCache.empty())
        html += QStringLiteral("<p>%1</p>\n")
                    .arg(esc(tr("The worker sent no compile record: it stopped before its first step finished.")));
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">\n");
    factRow(html, tr("Compiled as"), esc(compileSettingsText(c)));
    const QString state = run.compileCache.empty() ? c.cache : QString::fromStdString(run.compileCache);
    factRow(html, tr("Cache"), esc(cacheMeaning(state)));
    if (c.compileS)
        factRow(html, tr("Compile time"), esc(formatSecondsLabel(*c.compileS)));
    if (run.firstStepSeconds)
        factRow(html, tr("First step"), esc(formatSecondsLabel(*run.firstStepSeconds)));
    else if (c.firstStepS)
        factRow(html, tr("First step"), esc(formatSecondsLabel(*c.firstStepS)));
    factRow(html, tr("Graphs"), esc(compileCountsText(c)));
    factRow(html, tr("FX graph cache"), esc(cacheCountsText(c.fxGraphCache)));
    factRow(html, tr("AOT autograd cache"), esc(cacheCountsText(c.aotAutogradCache)));
    if (c.compiled && *c.compiled)
        factRow(html, tr("Compiled"),
                esc(run.category && run.status != RunStatus::Complete
                        ? tr("yes; the run failed after compiling (see Failure)")
                        : tr("yes")));
    html += QStringLiteral("</table>\n");
    cacheDirs(html, run);
    phases(html, c);
    list(html, tr("Graph break reasons"), c.breakReasons);
    list(html, tr("CUDA graph skips"), c.cudagraphSkips);
    return html;
}

QString runDetailHtml(const store::RunRecord &run)
{
    QString html =
        QStringLiteral("<h2>%1</h2>\n<p>%2</p>\n").arg(esc(run.configName), esc(tr("Run %1").arg(runChoiceText(run))));
    QString notCompiled;
    if (runNotCompiled(run, &notCompiled))
        html += notCompiledBox(notCompiled, run);

    if (run.category) {
        const auto fix = fixFor(Failure{*run.category, run.message, run.detail});
        html += QStringLiteral("<h3>%1</h3>\n<p><span style=\"color:%2\"><b>%3</b></span>: %4</p>\n<p>%5 %6</p>\n")
                    .arg(esc(tr("Failure")), failureColor().name(),
                         esc(QString::fromUtf8(toString(*run.category).data())), esc(run.message), esc(tr("Fix:")),
                         esc(QString::fromUtf8(fix.data(), static_cast<qsizetype>(fix.size()))));
    }

    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">\n");
    if (run.setupSeconds)
        factRow(html, tr("Setup"), esc(formatSecondsLabel(*run.setupSeconds)));
    if (run.firstStepSeconds && !runIsCompiled(run))
        factRow(html, tr("First step"), esc(formatSecondsLabel(*run.firstStepSeconds)));
    if (run.stepCount > 0)
        factRow(html, tr("Steps stored"), QString::number(run.stepCount));
    html += QStringLiteral("</table>\n");

    html += compileSectionHtml(run);
    html += machineCachesHtml(run);
    // The profile of the steps after the timed ones (issue 18): its facts, or why there is none.
    if (const auto lines = report::runProfileLines(run); !lines.empty()) {
        html += QStringLiteral("<h3>%1</h3>\n<ul>\n").arg(esc(tr("Profile")));
        for (std::size_t i = 0; i < lines.size(); ++i)
            html += QStringLiteral("<li>%1</li>\n")
                        .arg(esc(QString::fromStdString(i == 0 ? lines[i].substr(9) : lines[i])));
        html += QStringLiteral("</ul>\n");
    }
    // Its memory snapshot (issue 31.2): the step's timeline or the state at an out-of-memory failure.
    if (const report::MemoryLines memory = report::runMemoryLines(run); !memory.title.empty()) {
        QString title = QString::fromStdString(memory.title);
        title[0] = title[0].toUpper();
        html += QStringLiteral("<h3>%1</h3>\n<ul>\n").arg(esc(title));
        for (const std::string &line : memory.lines)
            html += QStringLiteral("<li>%1</li>\n").arg(esc(QString::fromStdString(line)));
        html += QStringLiteral("</ul>\n");
    }

    if (!run.detail.empty())
        html += QStringLiteral("<h3>%1</h3>\n<pre>%2</pre>\n").arg(esc(tr("Worker log")), esc(run.detail));
    return html;
}

} // namespace stepscope::ui
