#include "pages/ledger_page.h"

#include "models/figure_sort_proxy.h"
#include "models/ledger_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

// Long knob labels ("tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead+warm-cache") have
// no space to wrap at: a zero-width space after each '+' lets a word-wrapping label break there.
QString breakableAtPlus(QString text)
{
    return text.replace(QLatin1Char('+'), QStringLiteral("+\u200B"));
}

} // namespace

LedgerPage::LedgerPage(LedgerModel *model, QWidget *parent) : Page(parent), model_(model)
{
    recommendation_ = new QLabel;
    recommendation_->setWordWrap(true);
    recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    recommendation_->setStyleSheet("QLabel { font-weight: bold; padding: 6px; }");
    status_ = new QLabel;
    status_->setWordWrap(true);
    status_->setStyleSheet("QLabel { padding: 0 6px 6px 6px; font-style: italic; }");
    status_->setVisible(false);
    proxy_ = new FigureSortProxy(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(LedgerModel::SortRole);
    view_ = new QTableView;
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder); // sweep order until the user sorts
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    // Compiled configurations are named by every knob: the column is capped (fitColumns), a longer
    // name is elided in the middle (keeping the compile mode and cache state), and the tooltip has
    // the full name.
    view_->horizontalHeader()->setSectionResizeMode(LedgerModel::Configuration, QHeaderView::Interactive);
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->setToolTip(tr("Double-click a row for its steps; a failed, cancelled or compiled configuration shows "
                         "its run detail (failure, fix, log, torch.compile)"));
    connect(view_, &QTableView::doubleClicked, this,
            [this](const QModelIndex &index) { Q_EMIT rowActivated(proxy_->mapToSource(index).row()); });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(recommendation_);
    layout->addWidget(status_);
    layout->addWidget(view_);

    connect(model_, &LedgerModel::recommendationChanged, this, &LedgerPage::showRecommendation);
    connect(model_, &QAbstractItemModel::modelReset, this, &LedgerPage::fitColumns);
    showRecommendation();
}

void LedgerPage::clear()
{
    setStatus({});
    showRecommendation();
}

void LedgerPage::showRecommendation()
{
    const QString text = model_->recommendation();
    if (!text.isEmpty())
        recommendation_->setText(breakableAtPlus(text));
    else if (model_->rowCount() > 0)
        recommendation_->setText(tr("No recommendation yet: no configuration has a steady state."));
    else
        recommendation_->setText(tr("Run a sweep, or open one from History, to get a recommendation."));
}

void LedgerPage::fitColumns()
{
    view_->resizeColumnToContents(LedgerModel::Configuration);
    view_->setColumnWidth(LedgerModel::Configuration, std::min(view_->columnWidth(LedgerModel::Configuration), 420));
}

QString LedgerPage::recommendationText() const
{
    return recommendation_->text().remove(QChar(0x200B));
}

void LedgerPage::setStatus(const QString &text)
{
    status_->setText(text);
    status_->setVisible(!text.isEmpty());
}

QString LedgerPage::status() const
{
    return status_->isVisible() ? status_->text() : QString();
}

} // namespace stepscope::ui
