#pragma once
// The settings panel's Model field (issue 30): the name as the configuration takes it (config/
// model_name.h), typed with a completer that finds any part of a name among what the chosen Python can
// import (supervisor/model_listing.h, asked through ModelListJob the first time the field is used,
// kept per Python), a button that lists them all, and "Factory file…" for the user's own factory.
// Under it one line: the grammar in red while the name breaks it (Start would refuse it), else what
// the listing says (a missing library with its pip command, a name its library does not list).
#include "supervisor/model_listing.h"

#include <QWidget>

class QCompleter;
class QLabel;
class QLineEdit;
class QStringListModel;
class QToolButton;

namespace stepscope::ui
{

class ModelListJob;

class ModelPicker : public QWidget
{
    Q_OBJECT
  public:
    explicit ModelPicker(QWidget *parent = nullptr);

    // The name as typed: the panel's settings table reads and writes it here.
    QLineEdit *edit() const { return edit_; }
    // The configuration's model: the name typed, resnet18 when the field is empty.
    QString model() const;
    void setModel(const QString &name);
    // Whether model() is a name of the grammar (isModelName).
    bool valid() const;
    // Whether a model of this name may take token ids, and so sequence_length: a transformers
    // architecture or a factory (which may say "tokens"); torchvision, timm and resnet18 take images.
    static bool takesTokens(const QString &model);

    // The Python whose models the completer offers (the panel's interpreter; empty: automatic). Its
    // listing is asked for when the field is first used, unless one is kept.
    void setPython(const QString &configuredPython);
    // Shows `listing` as the chosen Python's (the job's answer; tests hand one in).
    void setListing(const supervisor::ModelListing &listing);

    QCompleter *completer() const { return completer_; }
    QLabel *hint() const { return hint_; }
    QToolButton *factoryButton() const { return factory_; }
    QToolButton *listButton() const { return list_; }
    // What "Factory file…" does once a file is chosen: `path:` and its factory, the only top-level
    // function of the file, or each of them offered in the completer to pick from.
    void useFactoryFile(const QString &path);

  Q_SIGNALS:
    void changed(); // the name, as typed

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override; // the field's first focus asks for the listing

  private:
    void fetchListing(); // the chosen Python's, unless it is here or on its way
    void updateNames();
    void updateHint();
    void showEveryName();

    QLineEdit *edit_;
    QToolButton *list_, *factory_;
    QLabel *hint_;
    QCompleter *completer_;
    QStringListModel *names_;
    ModelListJob *job_ = nullptr; // made on first use: a panel nobody types in starts no Python
    QString python_;
    supervisor::ModelListing listing_;
    bool haveListing_ = false; // listing_ is python_'s
    QStringList factories_;    // "file.py:name" of the factory file chosen last
};

} // namespace stepscope::ui
