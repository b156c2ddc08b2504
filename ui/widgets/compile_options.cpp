#include "widgets/compile_options.h"

#include "models/status_colors.h"
#include "widgets/field_widgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>

namespace stepscope::ui
{

using supervisor::SweepKind;

namespace
{

// The mode item that stands for "the preset's rows" (SweepRecipe::compile unset).
constexpr int kPresetRows = -1;

// QStandardItemModel's flags role: 0 greys an item of a QComboBox, an invalid QVariant restores it.
constexpr int kFlagsRole = Qt::UserRole - 1;

template <typename Enum> Enum current(const QComboBox *box)
{
    return static_cast<Enum>(box->currentData().toInt());
}

template <typename Enum> void select(QComboBox *box, Enum value)
{
    const int i = box->findData(static_cast<int>(value));
    if (i >= 0)
        box->setCurrentIndex(i);
}

// Greys the items of `box` that `probeWith(value)` makes invalid; the base tooltip of each item
// is kept in `Qt::UserRole + 1` so that a reason can be put in front of it and taken away again.
template <typename Enum, typename Probe> void greyInvalid(QComboBox *box, Probe probeWith)
{
    for (int i = 0; i < box->count(); ++i) {
        if (box->itemData(i).toInt() == kPresetRows)
            continue; // no configuration of its own to judge
        const std::string problem = compileProblems(probeWith(static_cast<Enum>(box->itemData(i).toInt())));
        const QString base = box->itemData(i, Qt::UserRole + 1).toString();
        box->setItemData(i, problem.empty() ? QVariant() : QVariant(0), kFlagsRole);
        box->setItemData(i, problem.empty() ? base : QString::fromStdString(problem) + QStringLiteral("\n\n") + base,
                         Qt::ToolTipRole);
    }
}

// What one choice does: its item's tooltip, which greyInvalid puts a refusal in front of. The box's
// own tooltip is the field's explanation.
void explainItem(QComboBox *box, int value, const QString &tip)
{
    const int i = box->findData(value);
    box->setItemData(i, tip, Qt::UserRole + 1);
    box->setItemData(i, tip, Qt::ToolTipRole);
}

} // namespace

CompileOptions::CompileOptions(QWidget *parent) : QGroupBox(tr("torch.compile"), parent)
{
    // The boxes, their labels, words and order from the configuration table (field_widgets.h);
    // what each choice does is said here, item by item.
    mode_ = fieldCombo(tableField("compile"));
    // The first item stands for no choice of the user's: the rows the sweep kind's preset brings.
    mode_->insertItem(0, tr("preset rows"), kPresetRows);
    mode_->setCurrentIndex(0);
    explainItem(mode_, kPresetRows,
                tr("What the sweep kind's preset compiles: the ledger ends with Python rows of eager, compile "
                   "default, reduce-overhead and compile default in the whole-step CUDA graph (on a GPU), as "
                   "stepscope-cli run does; the other kinds compile nothing."));
    explainItem(mode_, int(CompileMode::None), tr("Eager PyTorch: no torch.compile."));
    explainItem(mode_, int(CompileMode::Default),
                tr("inductor's default: fused generated kernels. A cold compile takes tens of seconds."));
    explainItem(mode_, int(CompileMode::ReduceOverhead),
                tr("default plus CUDA graphs of the compiled graphs: no launch overhead. CUDA only; a longer "
                   "compile and more memory."));
    explainItem(mode_, int(CompileMode::MaxAutotune),
                tr("Autotunes matmul and convolution kernels and uses CUDA graphs: the fastest steps, but a cold "
                   "compile costs minutes. CUDA only."));
    explainItem(mode_, int(CompileMode::MaxAutotuneNoCudagraphs),
                tr("Autotuning without CUDA graphs (the CPU's variant): a cold compile costs minutes."));

    backend_ = fieldCombo(tableField("compile_backend"));
    explainItem(backend_, int(CompileBackend::Inductor),
                tr("Generates fused kernels (Triton on CUDA, C++ on the CPU); the modes are its options."));
    explainItem(backend_, int(CompileBackend::CudaGraphs),
                tr("CUDA graphs of the captured graphs, no generated kernels. Mode default only; CUDA only."));
    explainItem(backend_, int(CompileBackend::AotEager),
                tr("Traces forward and backward with AOT autograd but runs eager kernels: tells a dynamo problem "
                   "from an inductor one. Not a speed-up. Mode default only."));

    target_ = fieldCombo(tableField("compile_target"));
    explainItem(target_, int(CompileTarget::Model),
                tr("torch.compile(model): forward and backward compiled; loss and optimizer run eager."));
    explainItem(target_, int(CompileTarget::Step),
                tr("The whole training step compiled, the optimizer too; more room for graph breaks."));

    hint_ = new QLabel;
    hint_->setWordWrap(true);
    hint_->setVisible(false);

    auto *form = new QFormLayout(this);
    addFieldRow(form, tableField("compile"), mode_);
    addFieldRow(form, tableField("compile_backend"), backend_);
    addFieldRow(form, tableField("compile_target"), target_);
    form->addRow(hint_);

    for (QComboBox *box : {mode_, backend_, target_})
        connect(box, &QComboBox::currentIndexChanged, this, &CompileOptions::changed);
}

CompileChoice CompileOptions::choice() const
{
    CompileChoice c;
    c.mode = mode_->currentData().toInt() == kPresetRows ? CompileMode::None : current<CompileMode>(mode_);
    c.backend = current<CompileBackend>(backend_);
    c.target = current<CompileTarget>(target_);
    return c;
}

std::optional<CompileChoice> CompileOptions::recipeChoice() const
{
    if (mode_->currentData().toInt() == kPresetRows)
        return std::nullopt;
    return choice();
}

void CompileOptions::setChoice(const std::optional<CompileChoice> &c)
{
    if (!c) {
        mode_->setCurrentIndex(mode_->findData(kPresetRows));
        return;
    }
    select(mode_, c->mode);
    select(backend_, c->backend);
    select(target_, c->target);
}

void CompileOptions::updateValidity(const RunConfig &probe)
{
    const CompileChoice now = choice();
    auto compiled = [&](CompileMode m, CompileBackend b, CompileTarget t) {
        CompileChoice c = now;
        c.mode = m;
        c.backend = b;
        c.target = t;
        return c.applyTo(probe).front();
    };
    greyInvalid<CompileMode>(mode_, [&](CompileMode m) { return compiled(m, now.backend, now.target); });
    // Backend and target only mean something with a mode: judge them with the chosen one, or default.
    const CompileMode mode = now.enabled() ? now.mode : CompileMode::Default;
    greyInvalid<CompileBackend>(backend_, [&](CompileBackend b) { return compiled(mode, b, now.target); });
    greyInvalid<CompileTarget>(target_, [&](CompileTarget t) { return compiled(mode, now.backend, t); });
    for (QWidget *w : {static_cast<QWidget *>(backend_), static_cast<QWidget *>(target_)})
        w->setEnabled(now.enabled());
}

void CompileOptions::explain(const RunConfig &base, SweepKind kind)
{
    const CompileChoice choice = this->choice();
    if (!choice.enabled()) {
        setHint({}, false);
        return;
    }
    // Where the form is one configuration (Single, the custom list), that is what compile joins.
    if (kind == SweepKind::Single || kind == SweepKind::Custom) {
        // Say now what Start would refuse: validate()'s own words for the configuration.
        const auto problems = validate(choice.applyTo(base).front());
        if (!problems.empty()) {
            setHint(QString::fromStdString(describe(problems)), true);
            return;
        }
    }
    const bool python = base.runtime == Runtime::Python;
    QString hint = python ? tr("torch.compile runs in the Python worker, so the runtime is Python") : QString();
    switch (kind) {
    case SweepKind::Ledger:
        hint = python ? tr("%1: the whole ledger runs there, so compile is measured against Python eager. Choose "
                           "native to keep the C++ rows; the compiled rows stay in Python.")
                            .arg(hint)
                      : tr("The native ledger gets Python rows: eager on the knobs compile builds on, then "
                           "compiled.");
        break;
    case SweepKind::Each:
    case SweepKind::Combinations:
        hint = python ? tr("%1, for the baseline and every row.").arg(hint)
                      : tr("Eager rows run native, compiled rows in the Python worker.");
        break;
    default:
        hint = python ? hint + QLatin1Char('.') : tr("Compiled configurations run in the Python worker.");
        break;
    }
    setHint(hint, false);
}

void CompileOptions::setHint(const QString &text, bool problem)
{
    hint_->setText(text);
    hint_->setVisible(!text.isEmpty());
    hint_->setStyleSheet(problem ? QStringLiteral("QLabel { color: %1; }").arg(failureColor().name()) : QString());
}

QString CompileOptions::hint() const
{
    return hint_->text();
}

void CompileOptions::saveSettings(QSettings &s) const
{
    const CompileChoice c = choice();
    s.setValue("compileMode", recipeChoice() ? QString::fromStdString(toString(c.mode)) : QStringLiteral("preset"));
    s.setValue("compileBackend", QString::fromStdString(toString(c.backend)));
    s.setValue("compileTarget", QString::fromStdString(toString(c.target)));
}

void CompileOptions::loadSettings(const QSettings &s, const QString &prefix)
{
    // Stored by name (the JSON names), not by index: a later mode in the list moves no choice.
    // Unset, the preset's rows: a new dashboard runs the sweep stepscope-cli run does.
    const QString mode = s.value(prefix + "compileMode", "preset").toString();
    if (mode == QLatin1String("preset")) {
        setChoice(std::nullopt);
        return;
    }
    RunConfig c;
    ConfigError ignored;
    setField(c, "compile", mode.toStdString(), ignored);
    setField(c, "compile_backend", s.value(prefix + "compileBackend", "inductor").toString().toStdString(), ignored);
    setField(c, "compile_target", s.value(prefix + "compileTarget", "model").toString().toStdString(), ignored);
    CompileChoice choice;
    choice.mode = c.compile;
    choice.backend = c.compileBackend;
    choice.target = c.compileTarget;
    setChoice(choice);
}

} // namespace stepscope::ui
