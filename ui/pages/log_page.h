#pragma once
// The Log tab: what the sweeps and the window did, one line each (kept to the last 5,000).
#include "pages/page.h"

class QPlainTextEdit;

namespace stepscope::ui
{

class LogPage : public Page
{
    Q_OBJECT
  public:
    explicit LogPage(QWidget *parent = nullptr);

    QString title() const override { return tr("Lo&g"); }
    QString key() const override { return QStringLiteral("log"); }

    void append(const QString &line);
    QString text() const;

  private:
    QPlainTextEdit *log_;
};

} // namespace stepscope::ui
