#pragma once
// The Ledger tab: the recommendation for the planned run, what is being computed, and the ledger
// table (one row per configuration) over the LedgerModel.
#include "pages/page.h"

class QLabel;
class QModelIndex;
class QSortFilterProxyModel;
class QTableView;

namespace stepscope::ui
{

class LedgerModel;

class LedgerPage : public Page
{
    Q_OBJECT
  public:
    explicit LedgerPage(LedgerModel *model, QWidget *parent = nullptr);

    QString title() const override { return tr("Le&dger"); }
    QString key() const override { return QStringLiteral("ledger"); }
    void clear() override;

    // The model's recommendation, or why there is none; follows the model by itself.
    QString recommendationText() const;
    // A line under the recommendation while the ledger is computed or recomputed; empty hides it.
    void setStatus(const QString &text);
    QString status() const;
    QTableView *view() const { return view_; }

  Q_SIGNALS:
    // A row was double-clicked (model row).
    void rowActivated(int row);

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void showEvent(QShowEvent *event) override;

  private:
    void showRecommendation();
    void fitColumns();
    void modelChanged();

    LedgerModel *model_;
    QLabel *recommendation_;
    QLabel *status_;
    QSortFilterProxyModel *proxy_;
    QTableView *view_;
    // Fitting measures every cell's wrapped text: done when the rows or the viewport's width
    // change and the table is on screen, not on every resize nor on a hidden page.
    bool fitWhenShown_ = false;
    int fittedWidth_ = -1;
};

} // namespace stepscope::ui
