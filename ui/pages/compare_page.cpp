#include "pages/compare_page.h"

#include "models/comparison_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace stepscope::ui
{

ComparePage::ComparePage(ComparisonModel *model, QWidget *parent) : Page(parent)
{
    caption_ = new QLabel;
    caption_->setWordWrap(true);
    view_ = new QTableView;
    view_->setModel(model);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(caption_);
    layout->addWidget(view_);
    clear();
}

void ComparePage::clear()
{
    setCaption(tr("Select two sweeps in History and press \"Compare two sweeps\"."));
}

void ComparePage::setCaption(const QString &text)
{
    caption_->setText(text);
}

QString ComparePage::caption() const
{
    return caption_->text();
}

} // namespace stepscope::ui
