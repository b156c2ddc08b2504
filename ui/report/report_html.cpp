#include "report/report_html.h"

#include "report/report_text.h"
#include "models/environment_assessment.h"
#include "models/ledger_format.h"
#include "models/ledger_model.h"
#include "models/status_colors.h"

#include "common/failure.h"
#include "report/number_text.h"
#include "report/sweep_status.h"
#include "profile/why.h"
#include "report/why_table.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace stepscope::ui
{
namespace
{

// A chart in the browser at most this wide (CSS shrinks it to the column); in print at most the
// page's text width. Never taller than this, so that a heading and its chart share a page.
constexpr int kMaxChartWidth = 900;
constexpr int kMaxChartHeight = 560;

using report_text::tr;

using report_text::esc;

QJsonObject parseObject(const QString &json)
{
    return QJsonDocument::fromJson(json.toUtf8()).object();
}

// The first of `keys` the object has, as text; workers differ in what they call a fact.
QString firstOf(const QJsonObject &object, std::initializer_list<const char *> keys)
{
    for (const char *key : keys) {
        const QString v = object.value(QLatin1String(key)).toVariant().toString();
        if (!v.isEmpty())
            return v;
    }
    return {};
}

QString colorName(const QColor &c)
{
    return c.name(QColor::HexRgb);
}

void keyValueTable(QString &html, const QList<QPair<QString, QString>> &rows)
{
    html += QStringLiteral("<table class=\"facts\" cellspacing=\"0\" cellpadding=\"3\">\n");
    for (const auto &[key, value] : rows)
        if (!value.isEmpty())
            html += QStringLiteral("<tr><th align=\"left\">%1</th><td>%2</td></tr>\n").arg(esc(key), esc(value));
    html += QStringLiteral("</table>\n");
}

QString localTime(const std::string &iso)
{
    const QDateTime t = QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm t")) : QString::fromStdString(iso);
}

void header(QString &html, const ReportInput &input, const report::Ledger &l, ReportMedium medium)
{
    const QString title = tr("Stepscope report: %1").arg(QString::fromStdString(l.sweep.name));
    const QDateTime generated = input.generated.isValid() ? input.generated : QDateTime::currentDateTime();
    html += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>%1</title>\n<style>\n"
                           "%5\n"
                           "h1 { font-size: 16pt; } h2 { font-size: 13pt; margin-top: 1.2em; }\n"
                           "h3 { font-size: 10.5pt; margin-top: 1em; }\n"
                           "img { max-width: 100%; height: auto; }\n"
                           ".chart { page-break-inside: avoid; }\n"
                           "table.ledger, table.facts { border-collapse: collapse; }\n"
                           "table.ledger { font-size: 8pt; max-width: 100%; }\n"
                           "table.ledger th, table.ledger td { border: 1px solid #bbb; padding: 2px 4px; }\n"
                           "table.ledger th { background-color: #eee; }\n"
                           "table.ledger tr { page-break-inside: avoid; }\n"
                           "td.num { text-align: right; }\n"
                           "table.facts th { padding-right: 1.5em; font-weight: normal; color: #555; }\n"
                           ".failed { color: %2; } .warn { color: %3; }\n"
                           ".recommendation { background-color: #e6f4ea; border: 1px solid %4; }\n"
                           ".note { color: #555; font-size: 9pt; }\n"
                           "</style></head><body>\n<h1>%1</h1>\n")
                .arg(esc(title), colorName(failureColor()), colorName(warningColor()), colorName(successColor()),
                     // A browser centres a reading column; QTextDocument turns the body's margins into
                     // margins of every table (37 px a side on the page), so print has none.
                     medium == ReportMedium::Browser
                         ? QStringLiteral("body { font-family: sans-serif; font-size: 10pt; max-width: 60em; "
                                          "margin: 1em auto; }")
                         : QStringLiteral("body { font-family: sans-serif; font-size: 9.5pt; }"));
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(tr("Sweep #%1, %2 preset, measured %3, %4. Report generated %5 by Stepscope.")
                             .arg(l.sweep.id)
                             .arg(QString::fromStdString(l.sweep.preset), localTime(l.sweep.created),
                                  QString::fromStdString(report::sweepStatusText(l)),
                                  generated.toString(QStringLiteral("yyyy-MM-dd HH:mm t")))));
}

void machine(QString &html, const QJsonObject &env, const report::Ledger &l)
{
    // The environment record has the facts; the ledger's parsed copy fills in for an old record.
    const auto &rec = l.environment;
    const auto fact = [&](std::initializer_list<const char *> keys, const std::string &fallback) {
        const QString v = firstOf(env, keys);
        return v.isEmpty() ? QString::fromStdString(fallback) : v;
    };
    html += QStringLiteral("<h2>%1</h2>\n").arg(esc(tr("Machine")));
    keyValueTable(html, {
                            {tr("GPU"), fact({"gpu"}, rec ? rec->gpu : std::string())},
                            // The native worker knows the driver's CUDA API version only, not the driver's own.
                            {tr("Driver"), firstOf(env, {"driver", "driver_version"})},
                            {tr("CUDA driver API"),
                             fact({"cuda_driver_api"}, env.isEmpty() && rec ? rec->driver : std::string())},
                            {tr("CUDA runtime"), fact({"cuda_runtime", "cuda"}, rec ? rec->cuda : std::string())},
                            {tr("cuDNN"), fact({"cudnn"}, rec ? rec->cudnn : std::string())},
                            {tr("torch"), fact({"torch"}, rec ? rec->torch : std::string())},
                            {tr("Python"), fact({"python"}, rec ? rec->python : std::string())},
                            {tr("CPU"), fact({"cpu"}, {})},
                            {tr("Host"), fact({"host"}, rec ? rec->host : std::string())},
                        });
}

void settings(QString &html, const report::Ledger &l)
{
    const QJsonObject s = parseObject(QString::fromStdString(l.sweep.settingsJson));
    QString steps = firstOf(s, {"steps"});
    if (const QString warmup = firstOf(s, {"warmup_steps"}); !steps.isEmpty() && !warmup.isEmpty())
        steps = tr("%1 measured after %2 warm-up").arg(steps, warmup);
    QString image = firstOf(s, {"image_size"});
    if (!image.isEmpty())
        image = QStringLiteral("%1x%1").arg(image);
    html += QStringLiteral("<h2>%1</h2>\n").arg(esc(tr("Settings")));
    keyValueTable(html, {
                            {tr("Device"), firstOf(s, {"device"})},
                            {tr("Runtime"), firstOf(s, {"runtime"})},
                            {l.models.size() > 1 ? tr("Models") : tr("Model"),
                             QString::fromStdString(report::modelsText(l.models))},
                            {tr("Batch"), firstOf(s, {"batch"})},
                            {tr("Image size"), image},
                            {tr("Steps per run"), steps},
                            {tr("Repeats (cold processes)"), firstOf(s, {"repeats"})},
                            {tr("Planned run"),
                             tr("%1 steps").arg(QString::fromStdString(report::groupThousands(l.plannedSteps)))},
                        });
}

void recommendation(QString &html, const report::Ledger &l, ReportMedium medium)
{
    const QString text =
        l.recommendationText.empty()
            ? tr("No recommendation: no configuration completed with a steady state and a sound accuracy check.")
            : QString::fromStdString(l.recommendationText);
    // A one-cell table, not a styled div: QTextDocument (the PDF) draws table backgrounds only.
    html += QStringLiteral("<h2>%1</h2>\n<table class=\"recommendation\" width=\"100%\" cellpadding=\"8\" "
                           "cellspacing=\"0\" border=\"1\" bgcolor=\"#e6f4ea\"><tr><td><b>%2</b></td></tr></table>\n")
                .arg(esc(tr("Recommendation")), esc(tableText(text, medium))); // it names knobs: keep them whole
}

// The ledger as two tables, times and comparisons: as one table of ten columns it did not fit a
// portrait page without breaking words.
void ledgerTables(QString &html, const report::Ledger &l, ReportMedium medium, int printTextWidth)
{
    const bool anyFailure =
        std::any_of(l.rows.begin(), l.rows.end(), [](const auto &row) { return !row.failureCategory.empty(); });
    using C = LedgerModel::Column;
    QList<int> times{C::Configuration, C::Status, C::FirstStep, C::SteadyState, C::Spread, C::Noise};
    // Peak memory where a worker reported it (the dashboard hides a column of dashes too).
    if (l.measuredMemory())
        times << C::PeakMemory;
    if (l.measuredEnergy())
        times << C::Energy;
    QList<int> against{C::Configuration, C::Speedup, C::BreakEven, C::Accuracy};
    if (anyFailure)
        against << C::Failure;

    const auto table = [&](const QList<int> &columns) {
        ReportTable t;
        for (int c : columns) {
            t.headers << ledgerHeader(c);
            t.numeric << ledgerRowNumeric(c);
        }
        for (const auto &row : l.rows) {
            const bool broken = ledgerRowFailed(row) || ledgerRowDiverged(row);
            const bool noisy = row.steadyMs && row.noise != stats::Noise::Ok;
            QStringList cells;
            for (int k = 0; k < columns.size(); ++k) {
                cells << ledgerCellText(row, columns[k]);
                if (!broken && noisy && columns[k] == C::Noise)
                    t.cellClasses.insert({int(t.rows.size()), k}, QStringLiteral("warn"));
            }
            t.rows << cells;
            t.rowClasses << (broken ? QStringLiteral("failed") : QString());
        }
        return tableHtml(t, medium, printTextWidth);
    };
    html += QStringLiteral("<h2>%1</h2>\n<h3>%2</h3>\n").arg(esc(tr("Ledger")), esc(tr("Time per configuration")));
    html += table(times);
    html += QStringLiteral("<h3>%1</h3>\n").arg(esc(tr("Against the baseline (first row)")));
    html += table(against);
    const bool gpu = !l.rows.empty() && l.rows.front().timing == store::Timing::Gpu;
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(tr("Steady state: median of the detected steady window (%1 per step), pooled over "
                            "cold-process repeats; spread: lowest and highest per-repeat median. Speed-up against "
                            "the first row with a 95% CI from a bootstrap over cold processes (never narrower than "
                            "each process's own steps allow); n.s. = no significant difference; n=1, no CI = one "
                            "repeat, no interval. "
                            "Break-even: steps after which a slower first step is paid back, with its interval.")
                             .arg(gpu ? tr("CUDA-event time") : tr("wall time"))));
    // Peak memory's reading, or why a sweep has none ("not measured: no GPU memory figures on the CPU").
    if (const std::string note = report::peakMemoryNote(l); !note.empty())
        html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(esc(QString::fromStdString(note)));
    // Energy (report/energy.h): a row's joules per step, first step, run and break-even in joules.
    if (const report::EnergyLines energy = report::energyLines(l); !energy.lines.empty()) {
        html += QStringLiteral("<p class=\"note\">%1</p>\n<ul>\n")
                    .arg(esc(tr("Energy (%1):").arg(QString::fromStdString(energy.heading))));
        for (const std::string &line : energy.lines)
            html += QStringLiteral("<li>%1</li>\n").arg(esc(QString::fromStdString(line)));
        html += QStringLiteral("</ul>\n");
    } else if (!energy.note.empty())
        html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(esc(QString::fromStdString(energy.note)));
}

// Where each configuration's step goes (report/why_table.h), where the sweep was profiled.
void why(QString &html, const report::Ledger &l, ReportMedium medium, int printTextWidth)
{
    const auto rows = report::whyRows(l);
    if (std::none_of(rows.begin(), rows.end(), [](const report::WhyRow &w) { return w.verdict.has_value(); }))
        return;
    ReportTable t;
    // "GPU busy" on a GPU sweep; a CPU row's busy time is its time inside ATen (profile::busyName).
    const bool anyCpu = std::any_of(rows.begin(), rows.end(),
                                    [](const report::WhyRow &w) { return w.profile && w.profile->device == "cpu"; });
    const bool allCpu = anyCpu && std::all_of(rows.begin(), rows.end(), [](const report::WhyRow &w) {
                            return !w.profile || w.profile->device == "cpu";
                        });
    t.headers << tr("Configuration") << tr("Verdict")
              << (allCpu ? tr("Inside ATen / step") : anyCpu ? tr("Busy / step") : tr("GPU busy / step"))
              << tr("Kernels / step") << tr("Compute");
    t.numeric << false << false << true << true << true;
    for (const report::WhyRow &w : rows) {
        const report::LedgerRow &r = l.rows[w.row];
        if (!w.verdict) {
            t.rows << QStringList{QString::fromStdString(r.label),
                                  tr("no profile: %1").arg(QString::fromStdString(w.problem)),
                                  {},
                                  {},
                                  {}};
            t.rowClasses << QString();
            continue;
        }
        const QString compute = QString::fromStdString(report::tflopsText(r.compute));
        t.rows << QStringList{QString::fromStdString(r.label), QString::fromStdString(w.verdict->text),
                              QStringLiteral("%1 / %2 ms (%3)")
                                  .arg(w.profile->busyMs, 0, 'f', 2)
                                  .arg(w.verdict->stepMs, 0, 'f', 2)
                                  .arg(QString::fromStdString(profile::busyShareText(
                                      w.profile->busyMs, w.verdict->stepMs, w.profile->device == "cpu"))),
                              QString::number(std::lround(w.profile->kernelsPerStep)), compute};
        t.rowClasses << QString();
    }
    html += QStringLiteral("<h2>%1</h2>\n").arg(esc(tr("Why: where each step goes")));
    html += tableHtml(t, medium, printTextWidth);
    html += QStringLiteral("<p class=\"note\">%1</p>\n")
                .arg(esc(allCpu ? tr("Inside ATen: the time in ATen ops of steps profiled after the timed ones, over "
                                     "the timed steady step (several threads' ops may overlap).")
                                : tr("GPU busy: the union of the GPU activity of steps profiled after the timed ones, "
                                     "over the timed steady step; launch-bound rows wait for the CPU that launches "
                                     "their work.")));
}

void problems(QString &html, const report::Ledger &l)
{
    QString items;
    for (const auto &row : l.rows) {
        if (ledgerRowCancelled(row)) {
            // A Stop is no failure: say what it kept, with no fix to apply.
            items +=
                QStringLiteral("<li><b>%1</b>: %2</li>\n")
                    .arg(esc(row.label),
                         esc(tr("%1: the sweep was stopped").arg(QString::fromStdString(report::statusText(row)))));
        } else if (!row.failureCategory.empty()) {
            QString fix;
            if (const auto category = failureCategoryFromString(row.failureCategory)) {
                const auto f = fixFor(Failure{*category, row.failureMessage, {}});
                fix = QString::fromUtf8(f.data(), static_cast<qsizetype>(f.size()));
            }
            items += QStringLiteral("<li><b>%1</b>: <span class=\"failed\">%2</span> (%3)")
                         .arg(esc(row.label), esc(row.failureCategory), esc(report::completionText(row)));
            if (!row.failureMessage.empty())
                items += QStringLiteral("<br>") + esc(row.failureMessage);
            items += QStringLiteral("<br>%1 %2</li>\n").arg(esc(tr("Fix:")), esc(fix));
        }
        if (ledgerRowDiverged(row))
            items += QStringLiteral("<li><b>%1</b>: <span class=\"failed\">%2</span><br>%3</li>\n")
                         .arg(esc(row.label), esc(report::accuracyText(row.accuracy)),
                              esc(tr("Its training broke (a loss that is not finite, or losses that did not fall "
                                     "while the baseline's did): it is left out of the recommendation.")));
        if (row.steadyProblem) {
            // With figures, the problem was one repeat's: the others still made the steady state.
            QString what = tr("no steady state: %1").arg(QString::fromStdString(describe(*row.steadyProblem)));
            if (row.steadyMs)
                what = tr("a repeat was left out: %1").arg(what);
            items +=
                QStringLiteral("<li><b>%1</b>: <span class=\"warn\">%2</span></li>\n").arg(esc(row.label), esc(what));
        }
    }
    if (items.isEmpty())
        return;
    html += QStringLiteral("<h2>%1</h2>\n<ul>\n%2</ul>\n").arg(esc(tr("Failures and flags")), items);
}

void environment(QString &html, const QString &json)
{
    QString rows;
    for (const auto &e : assessEnvironment(json)) {
        if (e.assessment.isEmpty())
            continue;
        const QString cls = e.severity == Severity::Problem   ? QStringLiteral("failed")
                            : e.severity == Severity::Warning ? QStringLiteral("warn")
                                                              : QString();
        rows += QStringLiteral("<li><b>%1</b> = %2: <span class=\"%3\">%4</span><br>%5 %6</li>\n")
                    .arg(esc(e.label), esc(e.value), cls, esc(e.assessment), esc(tr("Fix:")), esc(e.fix));
    }
    if (rows.isEmpty())
        return;
    html += QStringLiteral("<h2>%1</h2>\n<ul>\n%2</ul>\n").arg(esc(tr("What may skew these numbers")), rows);
}

void charts(QString &html, const ReportInput &input, ReportMedium medium, int printTextWidth)
{
    if (input.charts.isEmpty())
        return;
    html += QStringLiteral("<h2>%1</h2>\n").arg(esc(tr("Charts")));
    for (int i = 0; i < input.charts.size(); ++i) {
        const auto &[title, image] = input.charts[i];
        if (image.isNull())
            continue; // a chart that could not be rendered: nothing to show, not a broken image
        const qreal dpr = image.devicePixelRatio() > 0 ? image.devicePixelRatio() : 1.0;
        const int natural = qRound(image.width() / dpr);
        const int column = medium == ReportMedium::Print && printTextWidth > 0 ? printTextWidth : kMaxChartWidth;
        const int width = std::min({column, natural, kMaxChartHeight * image.width() / image.height()});
        const QString src = medium == ReportMedium::Browser
                                ? QStringLiteral("data:image/png;base64,") + pngBase64(image)
                                : chartResourceName(i);
        // The heading and its chart in one block for a browser's print; the PDF keeps them together
        // when it paginates (QTextDocument knows no page-break-inside).
        html += QStringLiteral("<div class=\"chart\">\n<h3>%1</h3>\n<p><img src=\"%2\" width=\"%3\" alt=\"%1\"></p>\n"
                               "</div>\n")
                    .arg(esc(title), src, QString::number(width));
    }
}

// Column widths for print as percentages: each column gets its longest unbreakable piece (a word,
// a knob), and what is left goes to the columns in proportion to how much more their longest
// cell would take on one line. Empty when every cell fits on one line anyway (QTextDocument sizes
// that well) or when even the pieces do not fit (no widths could help).
QStringList printColumnWidths(const ReportTable &table, int textWidth)
{
    const int columns = int(table.headers.size());
    if (textWidth <= 0 || columns == 0)
        return {};
    // As table.ledger in the style sheet: 8 pt, 4 px padding and a 1 px border a side, bold headers.
    QFont font(QStringLiteral("sans-serif"));
    font.setPointSizeF(8);
    QFont bold = font;
    bold.setBold(true);
    constexpr qreal kCellChrome = 2 * (4 + 1) + 3; // padding, border, and a little slack
    QVector<qreal> least(columns, 0), most(columns, 0);
    const auto measure = [&](int c, const QString &raw, const QFont &f) {
        const QFontMetricsF metrics(f);
        const QString text = tableText(raw, ReportMedium::Print);
        qreal piece = 0;
        QString current;
        for (const QChar ch : text) {
            current += ch;
            if (ch.isSpace() || ch == QChar(0x200B)) {
                piece = std::max(piece, metrics.horizontalAdvance(current.trimmed()));
                current.clear();
            }
        }
        piece = std::max(piece, metrics.horizontalAdvance(current.trimmed()));
        least[c] = std::max(least[c], piece + kCellChrome);
        most[c] = std::max(most[c], metrics.horizontalAdvance(text) + kCellChrome);
    };
    for (int c = 0; c < columns; ++c)
        measure(c, table.headers[c], bold);
    for (const QStringList &row : table.rows)
        for (int c = 0; c < std::min<int>(columns, int(row.size())); ++c)
            measure(c, row[c], font);
    const qreal available = textWidth - 4; // the table's own border
    qreal sumLeast = 0, sumMost = 0;
    for (int c = 0; c < columns; ++c) {
        sumLeast += least[c];
        sumMost += most[c];
    }
    if (sumMost <= available || sumLeast > available)
        return {};
    QStringList out;
    for (int c = 0; c < columns; ++c) {
        const qreal w = least[c] + (most[c] - least[c]) * (available - sumLeast) / (sumMost - sumLeast);
        out << QString::number(100.0 * w / available, 'f', 1) + QLatin1Char('%');
    }
    return out;
}

} // namespace

QString pngBase64(const QImage &image)
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return QString::fromLatin1(png.toBase64());
}

QString chartResourceName(int index)
{
    return QStringLiteral("chart-%1.png").arg(index);
}

QString reportEnvironmentJson(const ReportInput &input)
{
    return input.environmentJson.isEmpty() ? QString::fromStdString(input.ledger.environmentJson)
                                           : input.environmentJson;
}

QString tableText(const QString &text, ReportMedium medium)
{
    if (medium == ReportMedium::Browser)
        return text;
    QString out;
    out.reserve(text.size() + 8);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        const bool inside = i > 0 && i + 1 < text.size() && !text[i - 1].isSpace() && !text[i + 1].isSpace();
        if (c == QLatin1Char('-') && inside)
            out += QChar(0x2011); // non-breaking hyphen: "cudnn-bench" stays whole
        else if (c == QLatin1Char('+') && inside) {
            out += c;
            out += QChar(0x200B); // zero-width space: a line may break between two knobs
        } else
            out += c;
    }
    return out;
}

QString tableHtml(const ReportTable &table, ReportMedium medium, int textWidth)
{
    const int columns = int(table.headers.size());
    const QStringList widths = medium == ReportMedium::Print ? printColumnWidths(table, textWidth) : QStringList();
    // <thead>: QTextDocument repeats the header row on every page the table reaches.
    QString html =
        QStringLiteral("<table class=\"ledger\" cellspacing=\"0\" cellpadding=\"3\" border=\"1\">\n<thead><tr>");
    for (int c = 0; c < columns; ++c)
        html += QStringLiteral("<th%1>%2</th>")
                    .arg(widths.isEmpty() ? QString() : QStringLiteral(" width=\"%1\"").arg(widths[c]),
                         esc(tableText(table.headers[c], medium)));
    html += QStringLiteral("</tr></thead>\n");
    for (int r = 0; r < table.rows.size(); ++r) {
        const QString rowClass = table.rowClasses.value(r);
        html += rowClass.isEmpty() ? QStringLiteral("<tr>") : QStringLiteral("<tr class=\"%1\">").arg(rowClass);
        const QStringList &cells = table.rows[r];
        for (int c = 0; c < cells.size(); ++c) {
            QStringList classes;
            const bool numeric = table.numeric.value(c);
            if (numeric)
                classes << QStringLiteral("num");
            if (!rowClass.isEmpty())
                classes << rowClass; // QTextDocument does not inherit colour from <tr>
            if (const QString cell = table.cellClasses.value({r, c}); !cell.isEmpty())
                classes << cell;
            const QString cls =
                classes.isEmpty() ? QString() : QStringLiteral(" class=\"%1\"").arg(classes.join(QLatin1Char(' ')));
            const QString align = numeric ? QStringLiteral(" align=\"right\"") : QString();
            html += QStringLiteral("<td%1%2>%3</td>").arg(cls, align, esc(tableText(cells[c], medium)));
        }
        html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</table>\n");
    return html;
}

QString reportHtml(const ReportInput &input, ReportMedium medium, int printTextWidth)
{
    const report::Ledger &l = input.ledger;
    const QString envJson = reportEnvironmentJson(input);
    QString html;
    header(html, input, l, medium);
    machine(html, parseObject(envJson), l);
    settings(html, l);
    recommendation(html, l, medium);
    ledgerTables(html, l, medium, printTextWidth);
    why(html, l, medium, printTextWidth);
    html += compileReportHtml(input.compile, l, medium, printTextWidth);
    problems(html, l);
    environment(html, envJson);
    charts(html, input, medium, printTextWidth);
    html += QStringLiteral("</body></html>\n");
    return html;
}

QString toHtml(const ReportInput &input)
{
    return reportHtml(input, ReportMedium::Browser);
}

} // namespace stepscope::ui
