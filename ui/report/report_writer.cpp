#include "report/report_writer.h"

#include "report/report_text.h"
#include "models/environment_assessment.h"
#include "report/report_document.h"
#include "report/report_html.h"

#include <QCoreApplication>
#include <QDir>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <QUrl>

#include <functional>

namespace stepscope::ui
{
namespace
{

using report_text::tr;

bool fail(QString *error, const QString &path, const QString &reason)
{
    if (error)
        *error = tr("Could not write %1: %2. The folder may not exist or may not be writable, or the disk may be "
                    "full; choose another location or free some space.")
                     .arg(QDir::toNativeSeparators(path), reason);
    return false;
}

// The file appears complete or not at all: QSaveFile writes a temporary next to it and renames it
// only on commit; without commit, its destructor removes the temporary.
bool writeWith(const QString &path, QString *error, const std::function<bool(QSaveFile &)> &produce)
{
    if (path.isEmpty())
        return fail(error, path, tr("no file name was given"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, path, file.errorString());
    if (!produce(file)) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(error, path, reason);
    }
    if (!file.commit())
        return fail(error, path, file.errorString());
    return true;
}

bool writeBytes(const QString &path, const QByteArray &bytes, QString *error)
{
    return writeWith(path, error, [&](QSaveFile &file) { return file.write(bytes) == bytes.size(); });
}

QString markdownCell(QString s)
{
    return s.replace(QLatin1Char('|'), QLatin1String("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

} // namespace

ReportInput reportInputOf(report::Ledger ledger)
{
    ReportInput input;
    input.environmentJson = QString::fromStdString(ledger.environmentJson);
    input.ledger = std::move(ledger);
    input.generated = QDateTime::currentDateTime();
    return input;
}

QString toMarkdown(const ReportInput &input)
{
    QString md = QString::fromStdString(report::toMarkdown(input.ledger));
    md += report::compileReportMarkdown(input.compile, input.ledger);
    const auto entries = assessEnvironment(reportEnvironmentJson(input));
    if (entries.isEmpty())
        return md;
    md += QStringLiteral("\n### Environment\n\n| setting | value |\n|---|---|\n");
    for (const auto &e : entries)
        md += QStringLiteral("| %1 | %2 |\n").arg(markdownCell(e.label), markdownCell(e.value));
    QString skew;
    for (const auto &e : entries)
        if (!e.assessment.isEmpty())
            skew += QStringLiteral("- **%1** (%2): %3 Fix: %4\n").arg(e.label, e.value, e.assessment, e.fix);
    if (!skew.isEmpty())
        md += QStringLiteral("\n### What may skew these numbers\n\n") + skew;
    return md;
}

bool writeHtml(const ReportInput &input, const QString &path, QString *error)
{
    return writeBytes(path, toHtml(input).toUtf8(), error);
}

bool writeMarkdown(const ReportInput &input, const QString &path, QString *error)
{
    return writeBytes(path, toMarkdown(input).toUtf8(), error);
}

bool writeCsv(const ReportInput &input, const QString &path, QString *error)
{
    return writeBytes(path, QByteArray::fromStdString(report::toCsv(input.ledger)), error);
}

bool writeReport(const ReportInput &input, const QString &path, ReportFormat format, QString *error)
{
    switch (format) {
    case ReportFormat::Html:
        return writeHtml(input, path, error);
    case ReportFormat::Pdf:
        return writePdf(input, path, error);
    case ReportFormat::Markdown:
        return writeMarkdown(input, path, error);
    case ReportFormat::Csv:
        return writeCsv(input, path, error);
    }
    return false;
}

bool writePdf(const ReportInput &input, const QString &path, QString *error)
{
    // Portrait A4, paginated by hand: headings stay with what they head, no row spans two pages.
    const std::unique_ptr<QTextDocument> document = reportDocument(input, reportPageLayout());
    return writePdfDocument(*document, QString::fromStdString(input.ledger.sweep.name),
                            tr("Stepscope report: %1").arg(QString::fromStdString(input.ledger.sweep.name)), path,
                            error);
}

bool writePdfDocument(QTextDocument &document, const QString &title, const QString &footer, const QString &path,
                      QString *error)
{
    return writeWith(path, error, [&](QSaveFile &file) {
        bool printed = false;
        {
            // The writer finishes the PDF (xref, trailer) when the painter ends and it goes away.
            QPdfWriter pdf(&file);
            pdf.setCreator(QStringLiteral("Stepscope"));
            pdf.setTitle(title);
            pdf.setPageLayout(reportPageLayout());
            printed = printReportDocument(document, &pdf, footer);
        }
        return printed && file.error() == QFileDevice::NoError && file.pos() > 0;
    });
}

bool writeReportText(const QString &path, const QString &text, QString *error)
{
    return writeBytes(path, text.toUtf8(), error);
}

} // namespace stepscope::ui
