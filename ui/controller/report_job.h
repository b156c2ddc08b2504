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
    enum class Format { Html, Pdf, Markdown, Csv };
    // The format a file name asks for (its suffix); nullopt and a message for any other.
    static std::optional<Format> formatOf(const QString &path, QString *error);

    explicit ReportJob(QObject *parent = nullptr);
    // Fills input.compile from the store and writes `path` (written or refused). Reports do not
    // supersede each other: each request writes its file.
    void request(ReportInput input, const QString &path, Format format);

  Q_SIGNALS:
    void written(const QString &path);
    void refused(const QString &path, const QString &error);
};

} // namespace stepscope::ui
