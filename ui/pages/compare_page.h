#pragma once
// The Compare tab: two sweeps side by side (ComparisonModel), with what is compared above.
#include "pages/page.h"

class QLabel;
class QTableView;

namespace stepscope::ui
{

class ComparisonModel;

class ComparePage : public Page
{
    Q_OBJECT
  public:
    explicit ComparePage(ComparisonModel *model, QWidget *parent = nullptr);

    QString title() const override { return tr("&Compare"); }
    QString key() const override { return QStringLiteral("compare"); }
    void clear() override;

    void setCaption(const QString &text);
    QString caption() const;
    QTableView *view() const { return view_; }

  private:
    QLabel *caption_;
    QTableView *view_;
};

} // namespace stepscope::ui
