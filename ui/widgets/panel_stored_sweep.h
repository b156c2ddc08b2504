#pragma once
// The banner over the configuration panel while it shows a stored sweep read-only: the sweep's
// caption, "Run again with these settings", "Edit these" and "My settings". Hidden otherwise.
#include <QGroupBox>

class QLabel;
class QPushButton;

namespace stepscope::ui
{

class StoredSweepBanner : public QGroupBox
{
    Q_OBJECT
  public:
    explicit StoredSweepBanner(QWidget *parent = nullptr);

    QLabel *const caption;
    QPushButton *const runAgain;

  Q_SIGNALS:
    void editRequested(); // keep these settings, editable
    void ownRequested();  // back to the user's own settings
};

} // namespace stepscope::ui
