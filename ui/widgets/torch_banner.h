#pragma once
// The banner over the window of a machine without a usable PyTorch: it says so, why, and offers the
// setup. The device probe asks torch's LibTorch for CUDA devices, so without torch nothing is known
// of CUDA: the banner stands where "No CUDA device" would otherwise mislead.
#include <QFrame>

class QLabel;
class QPushButton;

namespace stepscope::ui
{

class TorchBanner : public QFrame
{
    Q_OBJECT
  public:
    explicit TorchBanner(QWidget *parent = nullptr);

    // Shows the banner with why no torch is usable and what to do (problemAndFix's words).
    void showProblem(const QString &why);
    QString text() const; // the title and the reason, plain (tests, accessibility)
    QPushButton *setupButton() const { return setup_; }

  Q_SIGNALS:
    void setupRequested();

  private:
    QLabel *reason_;
    QPushButton *setup_;
};

} // namespace stepscope::ui
