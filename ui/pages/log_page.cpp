#include "pages/log_page.h"

#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace stepscope::ui
{

LogPage::LogPage(QWidget *parent) : Page(parent)
{
    log_ = new QPlainTextEdit;
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(log_);
}

void LogPage::append(const QString &line)
{
    log_->appendPlainText(line);
}

QString LogPage::text() const
{
    return log_->toPlainText();
}

} // namespace stepscope::ui
