#include "widgets/database_dialog.h"

#include <QFileDialog>
#include <QFileInfo>

#include <memory>

namespace stepscope::ui
{

QFileDialog *databaseFileDialog(QWidget *parent, const QString &current)
{
    auto *dialog = new QFileDialog(parent, QFileDialog::tr("Open or create a measurements database"),
                                   QFileInfo(current).absolutePath(),
                                   QFileDialog::tr("Stepscope databases (*.sqlite *.db);;All files (*)"));
    dialog->setObjectName(QStringLiteral("databaseFileDialog"));
    // Open with any name: a file that does not exist yet is created. The platform's own open dialogs
    // (GTK, the portal) take only existing files in open mode, so Qt's dialog is used.
    dialog->setOption(QFileDialog::DontUseNativeDialog);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    dialog->setFileMode(QFileDialog::AnyFile);
    dialog->setLabelText(QFileDialog::Accept, QFileDialog::tr("&Open"));
    if (!current.isEmpty())
        dialog->selectFile(QFileInfo(current).fileName());
    return dialog;
}

QString chooseDatabaseFile(QWidget *parent, const QString &current)
{
    const std::unique_ptr<QFileDialog> dialog(databaseFileDialog(parent, current));
    if (dialog->exec() != QDialog::Accepted || dialog->selectedFiles().isEmpty())
        return {};
    return dialog->selectedFiles().front();
}

} // namespace stepscope::ui
