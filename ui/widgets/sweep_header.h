#pragma once
// The line above the tabs that says which sweep every view shows: its name and id, where it ran
// (device, GPU), its shape (batch, image size), configurations and repeats, the planned run, its
// baseline and when it ran; and what the window is computing for it meanwhile. It follows the
// ShownSweep presenter and the Activity by itself.
#include <QWidget>

class QLabel;

namespace stepscope::ui
{

class Activity;
class ShownSweep;
struct SweepInfo;

class SweepHeader : public QWidget
{
    Q_OBJECT
  public:
    // Neither is owned; both outlive the header.
    SweepHeader(ShownSweep *shown, Activity *activity, QWidget *parent = nullptr);

    void setSweep(const SweepInfo &info);
    void clear();
    qint64 sweepId() const { return sweepId_; }
    // What is being computed or read ("Computing the ledger…"); empty: nothing.
    void setActivity(const QString &text);
    // The header as plain text (tests, accessibility).
    QString text() const;
    QString activity() const;

  private:
    QLabel *title_;
    QLabel *facts_;
    QLabel *activity_;
    qint64 sweepId_ = 0;
};

} // namespace stepscope::ui
