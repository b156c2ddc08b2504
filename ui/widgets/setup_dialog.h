#pragma once
// Tools › Set up PyTorch…: installs the pinned torch and torchvision into Stepscope's managed Python
// environment with the core job (supervisor/python_setup.h), as `stepscope-cli setup` does. It
// shows the job's typed progress (phase, the download's bytes and size, time left), Cancel, and a
// failure's words with its fix and Retry; a retry resumes in the same environment. The job runs its
// processes asynchronously in the UI thread's loop; only this dialog touches its widgets.
#include "supervisor/python_setup.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace stepscope::ui
{

class SetupDialog : public QDialog
{
    Q_OBJECT
  public:
    // `reason`, when not empty, says why it is offered ("No usable PyTorch was found: ...").
    explicit SetupDialog(const QString &reason = {}, QWidget *parent = nullptr);

    // The options the next start or retry uses (the index field overrides indexUrl when filled).
    void setOptions(const supervisor::SetupOptions &options);
    void startSetup();
    supervisor::PythonSetup *job() const { return job_; }

    // What the dialog shows (tests).
    QString phaseText() const;
    QString detailText() const;
    QString errorText() const;
    QProgressBar *progressBar() const { return bar_; }
    QPushButton *startButton() const { return start_; }
    QPushButton *cancelButton() const { return cancel_; }
    QLineEdit *indexField() const { return index_; }

  Q_SIGNALS:
    // The environment is set up: the sweep that offered the dialog may start now.
    void ready(const stepscope::supervisor::SetupResult &result);

  public:
    void reject() override; // Esc or the window's close: a running setup is cancelled first

  private:
    void showProgress(const supervisor::SetupProgress &p);
    void showFailure(const supervisor::SetupFailure &f);
    void showReady(const supervisor::SetupResult &r);
    void setRunning(bool running);

    supervisor::PythonSetup *job_;
    supervisor::SetupOptions options_;
    QLabel *phase_;
    QLabel *detail_;
    QLabel *error_;
    QLabel *log_; // a failure's last lines of pip or venv
    QProgressBar *bar_;
    QLineEdit *index_;
    QPushButton *start_;  // "Set up", then "Retry" after a failure
    QPushButton *cancel_; // "Cancel" while running, else "Close"
};

} // namespace stepscope::ui
