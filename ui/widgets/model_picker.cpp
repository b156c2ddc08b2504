#include "widgets/model_picker.h"

#include "config/model_name.h"
#include "controller/model_list_job.h"
#include "models/status_colors.h"
#include "widgets/field_widgets.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QStringListModel>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

// The functions a factory file defines at its top level: what the user may name after its colon.
QStringList topLevelFunctions(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    static const QRegularExpression def(QStringLiteral("^(?:async\\s+)?def\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*\\("),
                                        QRegularExpression::MultilineOption);
    QStringList names;
    for (auto it = def.globalMatch(QString::fromUtf8(file.read(4 << 20))); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!name.startsWith(QLatin1Char('_')) && !names.contains(name))
            names << name;
    }
    return names;
}

// "timm:vit_tiny_patch16_224,img_size=64" -> "timm:vit_tiny_patch16_224": the name a listing holds.
QString withoutOptions(const QString &model)
{
    return model.section(QLatin1Char(','), 0, 0);
}

QString colored(const QColor &color)
{
    return QStringLiteral("QLabel { color: %1; }").arg(color.name());
}

} // namespace

ModelPicker::ModelPicker(QWidget *parent) : QWidget(parent)
{
    edit_ = new QLineEdit;
    edit_->setObjectName(QStringLiteral("field:model"));
    edit_->setPlaceholderText(QString::fromLatin1(kDefaultModel));
    edit_->setClearButtonEnabled(true);
    // The field's words from the configuration table, then what the picker adds to typing.
    edit_->setToolTip(fieldTip(tableField("model")) +
                      tr("\nType any part of a name to search what the chosen Python can import."));
    names_ = new QStringListModel(this);
    completer_ = new QCompleter(names_, this);
    completer_->setFilterMode(Qt::MatchContains); // "vit" finds timm:vit_* and hf:vit alike
    completer_->setCaseSensitivity(Qt::CaseInsensitive);
    completer_->setCompletionMode(QCompleter::PopupCompletion);
    completer_->setMaxVisibleItems(14);
    edit_->setCompleter(completer_);
    edit_->installEventFilter(this);

    list_ = new QToolButton;
    list_->setObjectName(QStringLiteral("modelList"));
    list_->setArrowType(Qt::DownArrow);
    list_->setToolTip(tr("Every model the chosen Python can import"));
    factory_ = new QToolButton;
    factory_->setObjectName(QStringLiteral("modelFactoryFile"));
    factory_->setText(tr("Factory file…"));
    factory_->setToolTip(tr("A .py file with a function that returns your model (README, \"Your own model\")"));
    hint_ = new QLabel;
    hint_->setObjectName(QStringLiteral("modelHint"));
    hint_->setWordWrap(true);
    hint_->setTextInteractionFlags(Qt::TextSelectableByMouse); // a pip command to copy

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    row->addWidget(edit_, 1);
    row->addWidget(list_);
    row->addWidget(factory_);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(row);
    layout->addWidget(hint_);

    connect(edit_, &QLineEdit::textChanged, this, [this] {
        updateHint();
        Q_EMIT changed();
    });
    connect(list_, &QToolButton::clicked, this, &ModelPicker::showEveryName);
    connect(factory_, &QToolButton::clicked, this, [this] {
        const QString typed = withoutOptions(model()).section(QLatin1Char(':'), 0, -2);
        const QString path = QFileDialog::getOpenFileName(this, tr("Python file with your model's factory"),
                                                          typed.endsWith(QLatin1String(".py")) ? typed : QString(),
                                                          tr("Python files (*.py)"));
        if (!path.isEmpty())
            useFactoryFile(path);
    });
    updateNames();
    updateHint();
}

bool ModelPicker::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == edit_ && event->type() == QEvent::FocusIn)
        fetchListing();
    return QWidget::eventFilter(watched, event);
}

QString ModelPicker::model() const
{
    const QString typed = edit_->text().trimmed();
    return typed.isEmpty() ? QString::fromLatin1(kDefaultModel) : typed;
}

void ModelPicker::setModel(const QString &name)
{
    edit_->setText(name);
}

bool ModelPicker::valid() const
{
    return isModelName(model().toStdString());
}

bool ModelPicker::takesTokens(const QString &model)
{
    const QString name = withoutOptions(model);
    return name.contains(QLatin1Char(':')) && !name.startsWith(QLatin1String("torchvision:")) &&
           !name.startsWith(QLatin1String("timm:"));
}

void ModelPicker::setPython(const QString &configuredPython)
{
    if (configuredPython == python_)
        return;
    python_ = configuredPython;
    haveListing_ = false;
    listing_ = {};
    if (job_)
        if (const supervisor::ModelListing *kept = job_->cached(python_))
            setListing(*kept);
    updateNames();
    updateHint();
}

void ModelPicker::setListing(const supervisor::ModelListing &listing)
{
    Q_ASSERT(QThread::currentThread() == thread());
    listing_ = listing;
    haveListing_ = true;
    updateNames();
    updateHint();
}

void ModelPicker::fetchListing()
{
    if (haveListing_ || !isEnabled())
        return;
    if (!job_) {
        job_ = new ModelListJob(this);
        connect(job_, &ModelListJob::listed, this,
                [this](const QString &python, const supervisor::ModelListing &listing) {
                    if (python == python_) // an answer for the Python chosen before is no use
                        setListing(listing);
                });
    }
    job_->request(python_);
    updateHint();
}

void ModelPicker::updateNames()
{
    QStringList names = factories_ + supervisor::modelNames(listing_);
    names.removeDuplicates();
    names_->setStringList(names);
    // The list as wide as its longest name (up to a limit), not as the field: names are long
    // ("timm:vit_base_patch16_clip_quickgelu_224") and the panel is narrow.
    int widest = 0;
    const QFontMetrics metrics(completer_->popup()->font());
    for (const QString &name : names)
        widest = std::max(widest, metrics.horizontalAdvance(name));
    completer_->popup()->setMinimumWidth(std::min(widest + 40, 560));
}

void ModelPicker::showEveryName()
{
    fetchListing();
    edit_->setFocus();
    // The whole list, or the names that hold what is typed (the completer's own filter).
    completer_->setCompletionPrefix(edit_->text().trimmed());
    completer_->complete();
}

void ModelPicker::useFactoryFile(const QString &path)
{
    const QStringList functions = topLevelFunctions(path);
    factories_.clear();
    for (const QString &f : functions)
        factories_ << path + QLatin1Char(':') + f;
    updateNames();
    edit_->setFocus();
    if (functions.size() == 1) {
        edit_->setText(factories_.front());
        return;
    }
    // None found, or several: the path and its colon, the cursor after it, each function offered.
    edit_->setText(path + QLatin1Char(':'));
    edit_->setCursorPosition(static_cast<int>(edit_->text().size()));
    if (!functions.isEmpty()) {
        completer_->setCompletionPrefix(edit_->text());
        completer_->complete();
    }
}

void ModelPicker::updateHint()
{
    const auto say = [this](const QString &text, const QColor &color = {}) {
        hint_->setText(text);
        hint_->setStyleSheet(color.isValid() ? colored(color) : QString());
    };
    if (!valid()) {
        // A search under way ("vit") is no name yet, but no mistake either while names hold it.
        const QString typed = edit_->text().trimmed();
        const QStringList names = names_->stringList();
        const int matches = static_cast<int>(std::count_if(names.begin(), names.end(), [&typed](const QString &name) {
            return supervisor::nameMatches(name, typed);
        }));
        if (matches > 0)
            return say(tr("%n name(s) hold '%1': pick one from the list.", nullptr, matches).arg(typed));
        return say(tr("Not a model name: use %1.").arg(QString::fromLatin1(modelPhrase())), failureColor());
    }
    if (!haveListing_)
        return say(job_ && job_->isRunning() ? tr("Asking the Python which models it can import…")
                                             : tr("Type any part of a name to search the chosen Python's models."));
    if (!listing_.listed())
        return say(tr("No list of models from this Python: %1").arg(listing_.problem), warningColor());
    // The library the name asks for: missing (with the command that installs it), or without it.
    const QString head = withoutOptions(model());
    for (const supervisor::ModelLibrary &library : listing_.libraries) {
        if (!head.startsWith(library.prefix + QLatin1Char(':')))
            continue;
        if (!library.available())
            return say(tr("%1 is not installed in this Python: %2").arg(library.library, library.install),
                       warningColor());
        if (!library.models.contains(head))
            return say(tr("%1 %2 lists no model '%3'.")
                           .arg(library.library, library.version, head.section(QLatin1Char(':'), 1)),
                       warningColor());
    }
    QStringList counts, missing;
    for (const supervisor::ModelLibrary &library : listing_.libraries) {
        if (library.available())
            counts << QStringLiteral("%1 %2 (%3)").arg(library.library, library.version).arg(library.models.size());
        else
            missing << library.install;
    }
    if (counts.isEmpty())
        return say(tr("This Python has none of torchvision, timm or transformers: %1").arg(missing.join(QStringLiteral("; "))),
                   warningColor());
    say(tr("Searching %1.").arg(counts.join(QStringLiteral(", "))) +
        (missing.isEmpty() ? QString() : QLatin1Char(' ') + tr("To add the others: %1").arg(missing.join(QStringLiteral("; ")))));
}

} // namespace stepscope::ui
