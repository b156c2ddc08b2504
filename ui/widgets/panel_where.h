#pragma once
// The configuration panel's "Where" group: the device, the runtime, the Python interpreter for
// Python runs, the CPU pin and threads and the memory limit, each made from its row of the
// configuration table (widgets/field_widgets.h), and the notes on the devices found and the
// interpreter in use.
#include <QGroupBox>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace stepscope::ui
{

class WhereGroup : public QGroupBox
{
    Q_OBJECT
  public:
    explicit WhereGroup(QWidget *parent = nullptr);

    // Offers cuda:0..count-1 and cpu, keeping the device shown where it is still offered; the first
    // GPU where there is one.
    void offerDevices(int count);
    // The interpreter as typed (empty: automatic), and the note naming the one Python runs would use.
    QString pythonInterpreter() const;
    void updatePythonNote();
    // The core list's box takes text only while "cores:" is chosen.
    void updateEnabled();

    QComboBox *const device;
    QComboBox *const runtime;    // data: int(Runtime)
    QLineEdit *const python;     // the interpreter; empty: automatic
    QComboBox *const affinity;   // data: "none", "one", "list"
    QLineEdit *const cores;      // the list, for "list"
    QSpinBox *const threads;     // 0: the library's default
    QSpinBox *const memoryLimit; // MiB; 0: the device's own
    QLabel *const deviceNote;    // what the probe found, or why nothing is known yet
    QLabel *const pythonNote;

  private:
    void browsePython();
};

} // namespace stepscope::ui
