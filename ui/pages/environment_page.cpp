#include "pages/environment_page.h"

#include "controller/doctor_job.h"
#include "models/doctor_model.h"
#include "models/environment_model.h"
#include "parts/table_copy.h"

#include <QCoreApplication>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

// Short columns fit their contents; the long value and its fix share what is left and wrap.
void fitColumns(QTableView *view, std::initializer_list<int> fitted)
{
    view->setWordWrap(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    for (int column : fitted)
        view->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
}

} // namespace

EnvironmentPage::EnvironmentPage(EnvironmentModel *environment, QWidget *parent) : Page(parent)
{
    envView_ = new QTableView;
    auto *envView = envView_;
    envView->setModel(environment);
    fitColumns(envView, {0, 1});
    // Hidden, the rows are measured when the page shows (fitRows); a ledger arriving resets the
    // model twice, and measuring every wrapped row of a hidden table then is work for nothing.
    connect(environment, &QAbstractItemModel::modelReset, this, [this] {
        if (isVisible())
            envView_->resizeRowsToContents();
    });

    doctor_ = new DoctorModel(this);
    job_ = new DoctorJob(this);
    auto *doctorBox = new QGroupBox(tr("Doctor: can this machine run both workers and torch.compile?"));
    run_ = new QPushButton(tr("Run doctor"));
    run_->setToolTip(tr("Checks this machine for the device chosen in the panel, as stepscope-cli doctor does: "
                        "which Python and LibTorch, the native worker and the GPU it sees, then the Python worker's "
                        "torch, torchvision, Triton, a C++ compiler, cache paths and a tiny torch.compile (seconds)."));
    status_ = new QLabel(tr("Not run yet."));
    status_->setWordWrap(true);
    auto *top = new QHBoxLayout;
    top->addWidget(run_);
    top->addWidget(status_, 1);
    doctorView_ = new QTableView;
    doctorView_->setModel(doctor_);
    fitColumns(doctorView_, {});
    // Status and check names are short and arrive row by row: fitted on each row, not to the header.
    for (int column : {int(DoctorModel::Status), int(DoctorModel::Item)})
        doctorView_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Interactive);
    doctorView_->verticalHeader()->setVisible(false);
    for (QTableView *view : {envView_, doctorView_})
        installTableCopy(view);
    auto *doctorLayout = new QVBoxLayout(doctorBox);
    doctorLayout->addLayout(top);
    doctorLayout->addWidget(doctorView_);

    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(envView);
    split->addWidget(doctorBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(run_, &QPushButton::clicked, this, &EnvironmentPage::doctorRequested);
    connect(job_, &DoctorJob::item, this, [this](const DoctorItem &item) {
        doctor_->append(item);
        for (int column : {int(DoctorModel::Status), int(DoctorModel::Item)})
            doctorView_->resizeColumnToContents(column);
        doctorView_->resizeRowsToContents();
    });
    connect(job_, &DoctorJob::askingPython, this, [this](const QString &device) {
        status_->setText(
            tr("Asking the Python worker about %1 (a tiny torch.compile takes a few seconds)…").arg(device));
    });
    connect(job_, &DoctorJob::finished, this, [this](int fails, int warnings) {
        run_->setEnabled(true);
        status_->setText(fails > 0      ? tr("%n check(s) failed: read the fix next to each.", nullptr, fails)
                         : warnings > 0 ? tr("Ready, with %n warning(s).", nullptr, warnings)
                                        : tr("Ready: both workers and torch.compile work here."));
        Q_EMIT doctorFinished(fails, warnings);
    });
}

void EnvironmentPage::runDoctor(const QString &configuredPython, const QString &device, const QString &database)
{
    if (job_->isRunning())
        return;
    doctor_->clear();
    run_->setEnabled(false);
    status_->setText(tr("Looking for Python and LibTorch, asking the native worker…"));
    const QString self =
        QStringLiteral("%1 %2").arg(QCoreApplication::applicationName(), QCoreApplication::applicationVersion());
    job_->start(self.trimmed(), configuredPython, device, database);
}

void EnvironmentPage::resizeEvent(QResizeEvent *event)
{
    Page::resizeEvent(event);
    fitRows();
}

void EnvironmentPage::showEvent(QShowEvent *event)
{
    Page::showEvent(event);
    fitRows();
}

void EnvironmentPage::fitRows()
{
    // Wrapped rows take their height from the column widths at the time they are measured; a
    // model reset while the tab is hidden measures against a narrow view and leaves rows many
    // lines tall. Measured again once the layout has settled.
    QTimer::singleShot(0, this, [this] {
        envView_->resizeRowsToContents();
        doctorView_->resizeRowsToContents();
    });
}

bool EnvironmentPage::doctorRunning() const
{
    return job_->isRunning();
}

QString EnvironmentPage::doctorStatus() const
{
    return status_->text();
}

} // namespace stepscope::ui
