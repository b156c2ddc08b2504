#pragma once
// The report of the sweep on show, written to a file: refused at once when there is nothing to
// report, the suffix names no format, or the file is one of the open database's own; else its
// charts are drawn on the UI thread (one per turn of the event loop) and the report job lays out
// and writes the rest on its thread. No widgets: the window asks for a file and shows the outcome.
#include <QObject>
#include <QString>

namespace stepscope::ui
{

class ReportJob;
class RunController;
class ShownSweep;

class ReportExport : public QObject
{
    Q_OBJECT
  public:
    // Neither is owned; both outlive this.
    ReportExport(ShownSweep *shown, RunController *controller, QObject *parent = nullptr);

    // Writes the report (format by the file's suffix): written or failed follows. False at once,
    // with *error, for what cannot be written (see above).
    bool write(const QString &path, QString *error);
    // Charts being drawn, or the report job writing.
    bool isBusy() const;
    ReportJob *job() const { return job_; }

    // Why `path` may not be written: it is one of the open database's files (the database, its
    // -wal, -shm or -journal, or a link to one); else empty. For any export of the dashboard.
    QString refusedTarget(const QString &path) const;

  Q_SIGNALS:
    void written(const QString &path);
    void failed(const QString &error);
    void busyChanged();

  private:
    ShownSweep *shown_;
    RunController *controller_;
    ReportJob *job_;
    int drawing_ = 0; // exports whose charts are still being drawn
};

} // namespace stepscope::ui
