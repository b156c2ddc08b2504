#include "parts/run_detail_dialog.h"

#include "models/run_detail.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace stepscope::ui
{

RunDetailDialog::RunDetailDialog(const QString &title, std::vector<store::RunRecord> runs, int shown, QWidget *parent)
    : QDialog(parent), runs_(std::move(runs))
{
    setWindowTitle(tr("Run detail: %1").arg(title));
    auto *layout = new QVBoxLayout(this);
    choice_ = new QComboBox;
    for (const auto &run : runs_)
        choice_->addItem(runChoiceText(run));
    auto *choiceRow = new QHBoxLayout;
    choiceRow->addWidget(new QLabel(tr("Repeat")));
    choiceRow->addWidget(choice_, 1);
    // One repeat needs no choice.
    const bool several = runs_.size() > 1;
    choiceRow->itemAt(0)->widget()->setVisible(several);
    choice_->setVisible(several);
    text_ = new QTextBrowser;
    text_->setOpenLinks(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    steps_ = buttons->addButton(tr("Show steps in Live"), QDialogButtonBox::ActionRole);
    layout->addLayout(choiceRow);
    layout->addWidget(text_, 1);
    layout->addWidget(buttons);
    resize(760, 620);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(steps_, &QPushButton::clicked, this, [this] {
        Q_EMIT showStepsRequested(currentRun().id);
        accept();
    });
    connect(choice_, &QComboBox::currentIndexChanged, this, &RunDetailDialog::showRun);
    const int first = std::clamp(shown, 0, std::max(0, int(runs_.size()) - 1));
    choice_->setCurrentIndex(first);
    showRun(first);
}

void RunDetailDialog::showRun(int index)
{
    if (index < 0 || index >= int(runs_.size()))
        return;
    html_ = runDetailHtml(runs_[std::size_t(index)]);
    text_->setHtml(html_);
    steps_->setEnabled(runs_[std::size_t(index)].stepCount > 0);
}

QString RunDetailDialog::html() const
{
    return html_;
}

const store::RunRecord &RunDetailDialog::currentRun() const
{
    return runs_.at(std::size_t(std::max(0, choice_->currentIndex())));
}

int RunDetailDialog::preferredRun(const std::vector<store::RunRecord> &runs)
{
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runNotCompiled(runs[i]))
            return int(i);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].category && runs[i].status != RunStatus::Complete)
            return int(i);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].status == RunStatus::Complete)
            return int(i);
    return 0;
}

} // namespace stepscope::ui
