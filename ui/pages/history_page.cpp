#include "pages/history_page.h"

#include "controller/query_job.h"
#include "controller/run_controller.h"
#include "models/history_model.h"
#include "parts/table_copy.h"

#include <QAction>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace stepscope::ui
{

HistoryPage::HistoryPage(HistoryModel *model, QueryJob *query, RunController *controller, QWidget *parent)
    : Page(parent), model_(model), query_(query), controller_(controller)
{
    filter_ = new QLineEdit;
    filter_->setPlaceholderText(tr("Filter sweeps and runs (id, name, configuration, status, category)"));
    filter_->setClearButtonEnabled(true);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setRecursiveFilteringEnabled(true);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterRole(HistoryModel::FilterRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setSortRole(HistoryModel::SortRole);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    view_ = new QTreeView;
    view_->setModel(proxy_);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder);             // newest sweep first, runs in run order
    view_->header()->resizeSection(HistoryModel::Name, 340); // configuration names are long
    // Cut at the front when narrower: a run's knobs end with the one that tells it from its
    // neighbours (its full name is the tooltip).
    view_->setTextElideMode(Qt::ElideLeft);
    view_->header()->resizeSection(HistoryModel::Id, 56);
    view_->header()->resizeSection(HistoryModel::Created, 150); // the full date and time
    connect(model_, &QAbstractItemModel::modelReset, view_, [this] { view_->expandToDepth(-1); });
    connect(view_, &QTreeView::doubleClicked, this, [this](const QModelIndex &index) {
        if (const qint64 sweep = model_->sweepId(proxy_->mapToSource(index)); sweep > 0)
            Q_EMIT showRequested(sweep);
    });
    installTableCopy(view_);

    auto *show = new QPushButton(tr("Show in ledger"));
    auto *compare = new QPushButton(tr("Compare two sweeps"));
    auto *rename = new QPushButton(tr("Rename…"));
    auto *remove = new QPushButton(tr("Delete sweep…"));
    rename->setToolTip(tr("Give the current sweep a name of its own (F2)"));
    connect(show, &QPushButton::clicked, this, [this] {
        if (const qint64 sweep = currentSweep(); sweep > 0)
            Q_EMIT showRequested(sweep);
    });
    connect(compare, &QPushButton::clicked, this, &HistoryPage::compareSelected);
    connect(rename, &QPushButton::clicked, this, &HistoryPage::renameCurrent);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (const qint64 sweep = currentSweep(); sweep > 0)
            deleteSweep(sweep);
    });
    auto *renameKey = new QAction(this);
    renameKey->setShortcut(Qt::Key_F2);
    renameKey->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(renameKey, &QAction::triggered, this, &HistoryPage::renameCurrent);
    view_->addAction(renameKey);

    // The undo bar of a deleted sweep, shown for the undo window.
    undoTimer_ = new QTimer(this);
    undoTimer_->setSingleShot(true);
    connect(undoTimer_, &QTimer::timeout, this, &HistoryPage::carryOutDelete);
    undoText_ = new QLabel;
    undoText_->setWordWrap(true);
    undoButton_ = new QPushButton(tr("&Undo"));
    undoButton_->setToolTip(tr("Keep the sweep with all its runs and steps (Ctrl+Z)"));
    connect(undoButton_, &QPushButton::clicked, this, &HistoryPage::undoDelete);
    auto *undoBar = new QFrame;
    undoBar->setFrameShape(QFrame::StyledPanel);
    auto *undoLayout = new QHBoxLayout(undoBar);
    undoLayout->setContentsMargins(6, 3, 6, 3);
    undoLayout->addWidget(undoText_, 1);
    undoLayout->addWidget(undoButton_);
    undoBar_ = undoBar;
    undoBar_->setVisible(false);
    undoAction_ = new QAction(this);
    undoAction_->setShortcut(QKeySequence::Undo);
    undoAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    undoAction_->setEnabled(false);
    connect(undoAction_, &QAction::triggered, this, &HistoryPage::undoDelete);
    addAction(undoAction_);

    auto *buttons = new QHBoxLayout;
    for (auto *button : {show, compare, rename, remove})
        buttons->addWidget(button);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(filter_);
    layout->addWidget(view_);
    layout->addWidget(undoBar_);
    layout->addLayout(buttons);

    connect(controller_, &RunController::databaseOpened, this, &HistoryPage::reload);
    connect(controller_, &RunController::sweepStarted, this, &HistoryPage::reload);
    connect(controller_, &RunController::sweepEvent, this, [this](const supervisor::SweepEvent &e) {
        if (std::holds_alternative<supervisor::event::Finished>(e))
            reload();
    });
    // The file the delete was asked of is let go: carried out there now (writeAsync still reaches it).
    connect(controller_, &RunController::closingDatabase, this, &HistoryPage::carryOutDelete);
}

HistoryPage::~HistoryPage()
{
    carryOutDelete();
}

void HistoryPage::reload()
{
    if (controller_->hasDatabase() && !controller_->isOpening())
        query_->requestHistory();
}

qint64 HistoryPage::currentSweep() const
{
    return model_->sweepId(proxy_->mapToSource(view_->currentIndex()));
}

QList<qint64> HistoryPage::selectedSweeps() const
{
    QList<qint64> sweeps;
    for (const auto &index : view_->selectionModel()->selectedRows()) {
        const auto source = proxy_->mapToSource(index);
        const qint64 id = model_->sweepId(source);
        if (id > 0 && model_->runId(source) == 0 && !sweeps.contains(id))
            sweeps << id;
    }
    std::sort(sweeps.begin(), sweeps.end());
    return sweeps;
}

void HistoryPage::compareSelected()
{
    const QList<qint64> sweeps = selectedSweeps();
    if (sweeps.size() != 2) {
        QMessageBox::information(this, tr("Compare sweeps"),
                                 tr("Select exactly two sweeps (Ctrl+click) in the history, then compare."));
        return;
    }
    Q_EMIT compareRequested(sweeps[0], sweeps[1]);
}

void HistoryPage::renameCurrent()
{
    const qint64 sweep = currentSweep();
    if (sweep <= 0)
        return;
    const QString current = model_->indexOfSweep(sweep).data().toString();
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Rename sweep %1").arg(sweep), tr("Name:"), QLineEdit::Normal, current, &ok);
    if (ok && !name.trimmed().isEmpty() && name.trimmed() != current)
        renameSweep(sweep, name.trimmed());
}

void HistoryPage::renameSweep(qint64 sweepId, const QString &name)
{
    QString error;
    const bool queued = controller_->renameSweep(
        sweepId, name,
        [this, sweepId, name](const QString &failure) {
            if (!failure.isEmpty()) {
                QMessageBox::warning(this, tr("Rename sweep"), failure);
                return;
            }
            Q_EMIT message(tr("Sweep %1 is now \"%2\".").arg(sweepId).arg(name), 6000);
            Q_EMIT renamed(sweepId, name);
            reload();
        },
        &error);
    if (!queued)
        QMessageBox::warning(this, tr("Rename sweep"), error);
}

void HistoryPage::deleteSweep(qint64 sweep)
{
    if (controller_->isRunning() && controller_->currentSweep() == sweep) {
        QMessageBox::information(this, tr("Delete sweep"), tr("Stop the running sweep before deleting it."));
        return;
    }
    const QModelIndex row = model_->indexOfSweep(sweep);
    const QString name = row.data().toString();
    const int runs = model_->rowCount(row);
    const int seconds = std::max(1, (undoWindowMs_ + 500) / 1000);
    // One arg() for several: a name with "%3" in it must not take what follows it.
    const QString what =
        runs == 1 ? tr("its one run and all its steps") : tr("its %1 runs and all their steps").arg(runs);
    QMessageBox ask(QMessageBox::Question, tr("Delete sweep"),
                    tr("Delete sweep %1 \"%2\" with %3?").arg(QString::number(sweep), name, what),
                    QMessageBox::Yes | QMessageBox::No, this);
    ask.setInformativeText(tr("For %1 s after, Undo (Ctrl+Z) on this page keeps it.").arg(seconds));
    ask.button(QMessageBox::Yes)->setText(tr("Delete"));
    ask.setDefaultButton(QMessageBox::No); // Enter on a dialog read too fast keeps the measurements
    if (ask.exec() != QMessageBox::Yes)
        return;
    carryOutDelete(); // one delete waits at a time: an earlier one is carried out now
    pending_ = sweep;
    pendingName_ = name;
    model_->hideSweep(sweep);
    Q_EMIT deleting(sweep);
    undoText_->setText(tr("Sweep %1 \"%2\" deleted. Its runs and steps leave the file in %3 s; until then "
                          "Undo keeps everything.")
                           .arg(QString::number(sweep), name, QString::number(seconds)));
    undoBar_->setVisible(true);
    undoAction_->setEnabled(true);
    undoTimer_->start(undoWindowMs_);
}

qint64 HistoryPage::endUndoWindow()
{
    undoTimer_->stop();
    undoBar_->setVisible(false);
    undoAction_->setEnabled(false);
    return std::exchange(pending_, 0);
}

void HistoryPage::undoDelete()
{
    const qint64 sweep = endUndoWindow();
    if (sweep == 0)
        return;
    model_->showSweep(sweep);
    Q_EMIT message(tr("Sweep %1 \"%2\" kept: nothing was deleted.").arg(QString::number(sweep), pendingName_), 6000);
    reload();
}

void HistoryPage::carryOutDelete()
{
    const qint64 sweep = endUndoWindow();
    if (sweep == 0 || !controller_)
        return; // (no writer left: nothing was written, the sweep stays whole)
    // The page may be gone when the commit is (the app quits): the writer side finishes it anyway.
    QPointer<HistoryPage> self(this);
    const QString done = tr("Sweep %1 \"%2\" deleted.").arg(QString::number(sweep), pendingName_);
    QString error;
    const bool queued = controller_->writeAsync([sweep](store::Database &db) { db.deleteSweep(sweep); },
                                                [self, sweep, done](const QString &failure) {
                                                    if (!self)
                                                        return;
                                                    if (!failure.isEmpty()) {
                                                        self->model_->showSweep(sweep);
                                                        QMessageBox::warning(self.data(), tr("Delete sweep"), failure);
                                                    } else {
                                                        Q_EMIT self->message(done, 6000);
                                                    }
                                                    self->reload();
                                                },
                                                &error);
    if (!queued) {
        model_->showSweep(sweep);
        QMessageBox::warning(this, tr("Delete sweep"), error);
    }
}

} // namespace stepscope::ui
