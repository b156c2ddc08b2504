#pragma once
// Runs the Python worker's --doctor without blocking the UI thread: an asynchronous QProcess in
// the UI thread's event loop (signals only, never waitFor*), its lines parsed as they arrive so
// the first checks show while the tiny torch.compile still runs.
#include "models/doctor_model.h"
#include "supervisor/worker_command.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

class QProcess;

namespace stepscope::ui
{

class DoctorProcess : public QObject
{
    Q_OBJECT
  public:
    explicit DoctorProcess(QObject *parent = nullptr);
    ~DoctorProcess() override;

    // Starts `python --doctor --device D`, after the rows Stepscope found itself (`found`:
    // supervisor::torchDoctorItems, which Python and which LibTorch), shown first. A worker command
    // without a program (no interpreter found) gives one fail row with what was tried, unless
    // `found` has its python row already, and finishes at once.
    void start(const supervisor::WorkerCommand &python, const QString &device, const QList<DoctorItem> &found = {});
    bool isRunning() const { return process_ != nullptr; }
    void cancel();

    static constexpr int kLimitMs = supervisor::kDoctorLimitMs; // as `stepscope-cli doctor`

  Q_SIGNALS:
    void item(const stepscope::ui::DoctorItem &item);
    void finished(int fails, int warnings);

  private:
    void readLines();
    void finish(DoctorExit exit);

    QPointer<QProcess> process_;
    QTimer limit_;
    QByteArray pending_;
    QByteArray stderr_;
    QList<DoctorItem> items_;
    QString command_;
    bool timedOut_ = false;
};

} // namespace stepscope::ui
