#include "widgets/setup_dialog.h"

#include "models/time_left_text.h"
#include "supervisor/managed_python.h"

#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

// The bar counts kilobytes: a QProgressBar holds an int, and a wheel of several GB does not fit.
constexpr qint64 kBarUnit = 1000;

QString phaseWords(const supervisor::SetupProgress &p)
{
    using supervisor::SetupPhase;
    switch (p.phase) {
    case SetupPhase::CreatingEnvironment:
        return QObject::tr("Creating the Python environment…");
    case SetupPhase::Resolving:
        return p.package.isEmpty() ? QObject::tr("Looking up the packages…")
                                   : QObject::tr("Looking up %1…").arg(p.package);
    case SetupPhase::Downloading:
        return QObject::tr("Downloading %1").arg(p.package.isEmpty() ? p.file : p.package);
    case SetupPhase::Installing:
        return QObject::tr("Installing…");
    case SetupPhase::Checking:
        return QObject::tr("Checking that torch and torchvision import…");
    }
    return {};
}

} // namespace

SetupDialog::SetupDialog(const QString &reason, QWidget *parent)
    : QDialog(parent), job_(new supervisor::PythonSetup(this)), phase_(new QLabel), detail_(new QLabel),
      error_(new QLabel), log_(new QLabel), bar_(new QProgressBar), index_(new QLineEdit),
      start_(new QPushButton(tr("Set up"))), cancel_(new QPushButton(tr("Close")))
{
    setWindowTitle(tr("Set up PyTorch"));
    auto *intro = new QLabel;
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QString text = reason.isEmpty() ? QString() : reason + "\n\n";
    text += tr("Stepscope installs torch %1 and torchvision %2 into its own Python environment:\n%3\n\n"
               "That is %4. After a cancel or a failure, %5. The environment is used only once it is complete.")
                .arg(supervisor::pinnedTorchVersion(), supervisor::pinnedTorchvisionVersion(),
                     supervisor::managedEnvironmentDir(), supervisor::setupSizeText(), supervisor::setupRetryText());
    if (supervisor::managedEnvironmentReady())
        text += "\n\n" + tr("It is set up already: setting up again checks it (pip keeps what is installed).");
    intro->setText(text);

    index_->setPlaceholderText(tr("pip's default (PyPI)"));
    index_->setToolTip(tr("A package index mirror, as pip's --index-url"));
    auto *form = new QFormLayout;
    form->addRow(tr("Package index:"), index_);

    bar_->setRange(0, 1);
    bar_->setValue(0);
    detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet("color: #b00020"); // the only colour: a failure must not read as progress
    error_->hide();
    log_->setWordWrap(true);
    log_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    log_->hide();

    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    start_->setDefault(true);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(phase_);
    layout->addWidget(bar_);
    layout->addWidget(detail_);
    layout->addWidget(error_);
    layout->addWidget(log_);
    layout->addStretch();
    layout->addLayout(buttons);
    setMinimumWidth(520);

    connect(start_, &QPushButton::clicked, this, &SetupDialog::startSetup);
    connect(cancel_, &QPushButton::clicked, this, &SetupDialog::reject);
    connect(job_, &supervisor::PythonSetup::progress, this, &SetupDialog::showProgress);
    connect(job_, &supervisor::PythonSetup::failed, this, &SetupDialog::showFailure);
    connect(job_, &supervisor::PythonSetup::finished, this, &SetupDialog::showReady);
}

void SetupDialog::setOptions(const supervisor::SetupOptions &options)
{
    options_ = options;
    index_->setText(options.indexUrl);
}

void SetupDialog::startSetup()
{
    Q_ASSERT(QThread::currentThread() == thread());
    if (job_->isRunning())
        return;
    supervisor::SetupOptions options = options_;
    options.indexUrl = index_->text().trimmed();
    error_->hide();
    error_->clear();
    log_->hide();
    phase_->setText(tr("Starting…"));
    detail_->clear();
    bar_->setRange(0, 0); // busy until a download says its size
    setRunning(true);
    job_->start(options);
}

void SetupDialog::setRunning(bool running)
{
    start_->setEnabled(!running);
    index_->setEnabled(!running);
    cancel_->setText(running ? tr("Cancel") : tr("Close"));
}

void SetupDialog::showProgress(const supervisor::SetupProgress &p)
{
    Q_ASSERT(QThread::currentThread() == thread());
    phase_->setText(phaseWords(p));
    if (p.phase == supervisor::SetupPhase::Downloading && p.fileTotal > 0) {
        bar_->setRange(0, int(p.fileTotal / kBarUnit));
        bar_->setValue(int(p.fileBytes / kBarUnit));
        QString text = tr("%1 of %2").arg(supervisor::byteText(p.fileBytes), supervisor::byteText(p.fileTotal));
        text += " · " + timeLeftText(p.secondsLeft, false);
        if (p.files > 1)
            text += " · " + tr("file %1, %2 downloaded in all").arg(p.files).arg(supervisor::byteText(p.bytesDone));
        detail_->setText(text);
    } else if (p.phase == supervisor::SetupPhase::Downloading) {
        bar_->setRange(0, 0);
        detail_->setText(tr("%1 so far").arg(supervisor::byteText(p.fileBytes)));
    } else {
        bar_->setRange(0, 0);
        detail_->setText(p.bytesDone > 0 ? tr("%1 downloaded").arg(supervisor::byteText(p.bytesDone)) : QString());
    }
}

void SetupDialog::showFailure(const supervisor::SetupFailure &f)
{
    Q_ASSERT(QThread::currentThread() == thread());
    setRunning(false);
    bar_->setRange(0, 1);
    bar_->setValue(0);
    phase_->setText(f.error == supervisor::SetupError::Cancelled ? tr("Cancelled") : tr("Setup failed"));
    QString text = f.message;
    if (!f.fix.isEmpty())
        text += "\n" + tr("Fix: %1").arg(f.fix);
    error_->setText(text);
    error_->show();
    // pip's own lines apart and plain: the words above are what to read, these are for looking up.
    if (!f.detail.isEmpty() && f.error != supervisor::SetupError::Cancelled) {
        log_->setText(f.detail);
        log_->show();
    }
    start_->setText(tr("Retry"));
}

void SetupDialog::showReady(const supervisor::SetupResult &r)
{
    Q_ASSERT(QThread::currentThread() == thread());
    setRunning(false);
    start_->setEnabled(false);
    bar_->setRange(0, 1);
    bar_->setValue(1);
    phase_->setText(tr("PyTorch is set up"));
    detail_->setText(
        tr("torch %1 and torchvision %2 in %3").arg(r.torchVersion, r.torchvisionVersion, r.environmentDir));
    Q_EMIT ready(r);
}

void SetupDialog::reject()
{
    if (job_->isRunning()) {
        job_->cancel(); // the dialog stays, showing "Cancelled" and Retry
        return;
    }
    QDialog::reject();
}

QString SetupDialog::phaseText() const
{
    return phase_->text();
}

QString SetupDialog::detailText() const
{
    return detail_->text();
}

QString SetupDialog::errorText() const
{
    return error_->isHidden() ? QString() : error_->text();
}

} // namespace stepscope::ui
