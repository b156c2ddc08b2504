#include "widgets/panel_where.h"

#include "models/status_colors.h"
#include "supervisor/worker_command.h"
#include "widgets/field_widgets.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace stepscope::ui
{
namespace
{

QLabel *note()
{
    auto *label = new QLabel;
    label->setWordWrap(true);
    return label;
}

} // namespace

WhereGroup::WhereGroup(QWidget *parent)
    : QGroupBox(tr("Where"), parent), device(fieldCombo(tableField("device"))),
      runtime(fieldCombo(tableField("runtime"))), python(new QLineEdit),
      affinity(fieldCombo(tableField("cpu_affinity"))), cores(new QLineEdit), threads(fieldSpin(tableField("threads"))),
      memoryLimit(fieldSpin(tableField("memory_limit_mib"))), deviceNote(note()), pythonNote(note())
{
    // The Python interpreter is the dashboard's own setting, no field of a configuration.
    python->setPlaceholderText(tr("automatic"));
    python->setToolTip(tr("The interpreter for Python runs. Empty: STEPSCOPE_PYTHON, else the build's virtual "
                          "environment, else python3 on PATH."));
    python->setClearButtonEnabled(true);
    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose the Python interpreter"));
    auto *pythonRow = new QHBoxLayout;
    pythonRow->addWidget(python, 1);
    pythonRow->addWidget(browse);
    pythonNote->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The core list is the affinity's value when "cores:" is chosen: the same row, the same words.
    cores->setPlaceholderText(tr("e.g. 2,3 or 4-7"));
    cores->setToolTip(affinity->toolTip());
    auto *affinityRow = new QHBoxLayout;
    affinityRow->addWidget(affinity);
    affinityRow->addWidget(cores, 1);

    auto *form = new QFormLayout(this);
    addFieldRow(form, tableField("device"), device);
    addFieldRow(form, tableField("runtime"), runtime);
    form->addRow(tr("Python"), pythonRow);
    form->addRow(pythonNote);
    form->addRow(fieldLabel(tableField("cpu_affinity")), affinityRow);
    addFieldRow(form, tableField("threads"), threads);
    addFieldRow(form, tableField("memory_limit_mib"), memoryLimit);
    form->addRow(deviceNote);

    connect(browse, &QToolButton::clicked, this, &WhereGroup::browsePython);
    connect(python, &QLineEdit::textChanged, this, &WhereGroup::updatePythonNote);
    connect(affinity, &QComboBox::currentIndexChanged, this, &WhereGroup::updateEnabled);
}

void WhereGroup::offerDevices(int count)
{
    const QString previous = device->currentText();
    device->clear();
    for (int i = 0; i < count; ++i)
        device->addItem(QString("cuda:%1").arg(i));
    device->addItem("cpu");
    const int keep = device->findText(previous);
    device->setCurrentIndex(count > 0 ? 0 : device->findText("cpu"));
    if (keep >= 0 && previous != "cpu")
        device->setCurrentIndex(keep);
}

QString WhereGroup::pythonInterpreter() const
{
    return python->text().trimmed();
}

void WhereGroup::updatePythonNote()
{
    // Resolved now, as a sweep would: the user sees which interpreter (and so which torch) runs.
    const auto worker = supervisor::defaultPythonWorker(pythonInterpreter());
    if (worker.program.isEmpty()) {
        pythonNote->setText(worker.origin);
        pythonNote->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()));
    } else {
        pythonNote->setText(tr("Python runs use %1 (%2).").arg(worker.program, worker.origin));
        pythonNote->setStyleSheet(QString());
    }
}

void WhereGroup::updateEnabled()
{
    cores->setEnabled(affinity->currentData().toString() == QLatin1String("list"));
}

void WhereGroup::browsePython()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Python interpreter for Python runs"),
                                                      python->text().isEmpty() ? QString() : python->text());
    if (!path.isEmpty())
        python->setText(path);
}

} // namespace stepscope::ui
