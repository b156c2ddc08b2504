#include "report/sweep_export.h"

#include "report/assessment_text.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace stepscope::report
{

SweepFigures sweepFigures(const store::Reader &reader, const Ledger &ledger)
{
    return {assessSweep(ledger.environmentJson, sweepTimings(reader, ledger.sweep.id)), compileBreakEvens(ledger)};
}

std::string toMarkdown(const Ledger &ledger, const SweepFigures &figures)
{
    return toMarkdown(ledger) + compileBreakEvenMarkdown(ledger, figures.compile) +
           assessmentMarkdown(figures.assessment);
}

std::string toJson(const Ledger &ledger, const SweepFigures &figures)
{
    // The ledger's own document, extended: its keys and their format stay toJson(ledger)'s.
    QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(toJson(ledger))).object();
    root["compile_break_even"] = compileBreakEvenJson(ledger, figures.compile);
    root["environment_assessment"] = assessmentJson(figures.assessment);
    return QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace stepscope::report
