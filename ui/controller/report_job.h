#pragma once
// Writes a report file off the UI thread: the torch.compile section's runs are read from the
// store, then the HTML, PDF, Markdown or CSV is laid out and written there. The charts come in
// already rendered (widgets paint on the UI thread only).
#include "controller/reader_job.h"
#include "report/report_writer.h"

namespace stepscope::ui
{

class ReportJob : public ReaderJob
{
    Q_OBJECT
  public:
    explicit ReportJob(QObject *parent = nullptr);
    // Fills input.compile from the store and writes `path` (written or refused): writeSweepReport
    // (report/sweep_report.h). Reports do not supersede each other: each request writes its file.
    void request(ReportInput input, const QString &path, ReportFormat format);

  Q_SIGNALS:
    void written(const QString &path);
    void refused(const QString &path, const QString &error);
};

} // namespace stepscope::ui
