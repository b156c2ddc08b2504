#pragma once
// The Environment tab: what the sweep's worker reported (EnvironmentModel, with what skews the
// numbers), and the doctor (supervisor/doctor_service.h, the rows `stepscope-cli doctor` prints):
// which Python and LibTorch, the native worker, and the Python worker's own check of this machine
// (torch, Triton, a C++ compiler, a tiny torch.compile), run on request without blocking the window.
#include "pages/page.h"

class QLabel;
class QPushButton;
class QTableView;

namespace stepscope::ui
{

class DoctorJob;
class DoctorModel;
class EnvironmentModel;

class EnvironmentPage : public Page
{
    Q_OBJECT
  public:
    explicit EnvironmentPage(EnvironmentModel *environment, QWidget *parent = nullptr);

    QString title() const override { return tr("&Environment"); }
    QString key() const override { return QStringLiteral("environment"); }

    // Checks the workers a run with `configuredPython` (empty: the default lookup) would use, on
    // `device`; rows appear as they come.
    void runDoctor(const QString &configuredPython, const QString &device, const QString &database);
    bool doctorRunning() const;
    DoctorModel *doctorModel() const { return doctor_; }
    QPushButton *doctorButton() const { return run_; }
    QString doctorStatus() const;

  Q_SIGNALS:
    // The button was pressed: the window knows the interpreter and the device to ask about.
    void doctorRequested();
    void doctorFinished(int fails, int warnings);

  protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

  private:
    void fitRows();

    QTableView *envView_;
    DoctorModel *doctor_;
    DoctorJob *job_;
    QPushButton *run_;
    QLabel *status_;
    QTableView *doctorView_;
};

} // namespace stepscope::ui
