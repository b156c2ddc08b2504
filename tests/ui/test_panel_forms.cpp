// The configuration panel's forms against core's tables, field by field: every field of the
// configuration table with a form (config_table.h's FieldForm) and every limit of the sweep's table
// with one (sweep_request.h's LimitForm) has its widget, with the table's label, tooltip, range,
// default, unit and words for 0; a changed row makes a changed widget; what the table's rules refuse
// is greyed, and a limit follows its enabling rule.
#include "widgets/config_panel.h"
#include "widgets/field_widgets.h"

#include "config/config_table.h"
#include "supervisor/sweep_request.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include <memory>

using namespace stepscope;
using namespace stepscope::ui;

namespace
{

QString words(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

// The panel with its action bar: a window may have moved the bar out of it.
QList<QWidget *> roots(const ConfigPanel &panel)
{
    return {const_cast<ConfigPanel *>(&panel), panel.actionBar()};
}

template <typename W> W *find(const ConfigPanel &panel, const QString &name)
{
    for (QWidget *root : roots(panel))
        if (auto *w = root->findChild<W *>(name))
            return w;
    return nullptr;
}

// Whether some label or button of the panel reads `text`: a row's label, or a checkbox's own.
bool shows(const ConfigPanel &panel, const QString &text)
{
    for (QWidget *root : roots(panel)) {
        for (const QLabel *label : root->findChildren<QLabel *>())
            if (label->text() == text)
                return true;
        for (const QAbstractButton *button : root->findChildren<QAbstractButton *>())
            if (button->text() == text)
                return true;
    }
    return false;
}

// The flags of the table: the knobs' checkboxes carry the sweep builders' names.
QString knobObject(const std::string &key)
{
    if (key == "cudnn_benchmark")
        return QStringLiteral("knob:cudnn-bench");
    return QStringLiteral("knob:") + QString::fromStdString(key).replace('_', '-');
}

// Whether a rule of the table refuses `key` set to `value` on `config`, read from rules() here
// rather than through validate(), so that the panel's greying is checked against the table itself.
bool tableRefuses(RunConfig config, const char *key, const std::string &value)
{
    ConfigError error;
    if (!setField(config, key, value, error))
        return true;
    for (const FieldRule &rule : rules()) {
        if (std::string(rule.field) != key)
            continue;
        bool all = true;
        for (const FieldCondition &c : rule.when) {
            const std::string v = valueText(config, *findField(c.field));
            const bool listed = std::find(c.values.begin(), c.values.end(), v) != c.values.end();
            all = all && listed != c.negate;
        }
        if (all)
            return true;
    }
    return false;
}

} // namespace

class TestPanelForms : public QObject
{
    Q_OBJECT
  private Q_SLOTS:
    // Every field with a form has a widget, named after it, with the table's words and numbers.
    void everyFieldWithAFormHasItsWidget()
    {
        ConfigPanel panel;
        panel.setCudaDevices(1); // every knob enabled: no refusal in front of a tooltip
        QStringList formed;
        for (const FieldInfo &f : fields()) {
            if (!*f.form.label)
                continue;
            const std::string key = f.key;
            formed << QString::fromStdString(key);
            QVERIFY2(shows(panel, words(f.form.label)), f.key);
            const QString tip = QString::fromStdString(explanation(f));
            switch (f.kind) {
            case FieldKind::Integer: {
                auto *box = find<QSpinBox>(panel, QStringLiteral("field:") + QLatin1String(f.key));
                QVERIFY2(box, f.key);
                QCOMPARE(qint64(box->minimum()), f.min);
                QCOMPARE(qint64(box->maximum()), f.max);
                QCOMPARE(box->suffix(), words(f.form.unit));
                QCOMPARE(box->specialValueText(), words(f.form.zero));
                QCOMPARE(box->toolTip(), tip);
                break;
            }
            case FieldKind::Flag: {
                auto *box = find<QCheckBox>(panel, knobObject(key));
                QVERIFY2(box, f.key);
                QCOMPARE(box->text(), words(f.form.label));
                QCOMPARE(box->toolTip(), tip);
                break;
            }
            case FieldKind::Choice:
            case FieldKind::CoreList: {
                auto *box = find<QComboBox>(panel, QStringLiteral("field:") + QLatin1String(f.key));
                QVERIFY2(box, f.key);
                QCOMPARE(box->toolTip(), tip);
                // The choices the form offers, in its order and words; without them, every choice by
                // its name. A box may offer one more of its own (compile's "preset rows").
                std::vector<std::pair<std::string, std::string>> offered = f.form.offered;
                if (offered.empty())
                    for (const std::string &choice : f.choices)
                        offered.emplace_back(choice, choice);
                const int first = box->count() - int(offered.size());
                QVERIFY2(first == 0 || first == 1, f.key);
                for (int i = first; i < box->count(); ++i) {
                    const auto &[name, label] = offered[std::size_t(i - first)];
                    QCOMPARE(box->itemText(i), QString::fromStdString(label));
                    const QVariant data = box->itemData(i);
                    if (f.kind == FieldKind::CoreList)
                        QCOMPARE(data.toString(), QString::fromStdString(name));
                    else if (data.isValid()) // the enum: the name's index among the choices
                        QCOMPARE(f.choices.at(std::size_t(data.toInt())), name);
                }
                break;
            }
            case FieldKind::Device:
            case FieldKind::Model: {
                auto *w = find<QWidget>(panel, QStringLiteral("field:") + QLatin1String(f.key));
                QVERIFY2(w, f.key);
                break;
            }
            }
        }
        // The fields the panel shows; the others (classes, the seed, data-parallel settings) are the
        // CLI's and the sweep files'.
        QCOMPARE(formed,
                 QStringList({"runtime",         "device",         "model",        "tf32",       "cudnn_benchmark",
                              "autocast",        "channels_last",  "cuda_graph",   "optimizer",  "compile",
                              "compile_backend", "compile_target", "batch",        "image_size", "sequence_length",
                              "warmup_steps",    "steps",          "cpu_affinity", "threads",    "memory_limit_mib"}));
        // A fresh configuration's values, where no device's default shape overrides them.
        QCOMPARE(panel.threadsBox()->value(), RunConfig{}.threads);
        QCOMPARE(find<QSpinBox>(panel, "field:memory_limit_mib")->value(), RunConfig{}.memoryLimitMib);
    }

    // Every limit with a form has its box (the planned run's in the action bar) with the table's
    // range, default, unit, words for 0, step and tooltip, under the table's label.
    void everyLimitWithAFormHasItsBox()
    {
        ConfigPanel panel;
        QStringList formed;
        for (const supervisor::SweepLimit *limit : supervisor::kSweepLimits) {
            if (!*limit->form.label)
                continue;
            formed << QString::fromLatin1(limit->option);
            QVERIFY2(shows(panel, words(limit->form.label)), limit->option);
            const QString name = QStringLiteral("limit:") + QLatin1String(limit->option);
            const QString tip = QString::fromStdString(supervisor::explanation(*limit));
            QAbstractSpinBox *box = nullptr;
            if (auto *spin = find<QSpinBox>(panel, name)) {
                QCOMPARE(double(spin->minimum()), limit->min);
                QCOMPARE(double(spin->maximum()), limit->max);
                QCOMPARE(double(spin->value()), limit->defaultValue);
                QCOMPARE(double(spin->singleStep()), limit->form.step);
                QCOMPARE(spin->suffix(), words(limit->form.unit));
                QCOMPARE(spin->prefix(), words(limit->form.prefix));
                box = spin;
            } else if (auto *real = find<QDoubleSpinBox>(panel, name)) {
                QVERIFY(limit->minExclusive);
                QCOMPARE(real->minimum(), limit->min + limit->form.step); // the finest value above the bound
                QCOMPARE(real->maximum(), limit->max);
                QCOMPARE(real->value(), limit->defaultValue);
                QCOMPARE(real->singleStep(), limit->form.step);
                QCOMPARE(real->suffix(), words(limit->form.unit));
                QCOMPARE(real->prefix(), words(limit->form.prefix));
                box = real;
            }
            QVERIFY2(box, limit->option);
            QCOMPARE(box->specialValueText(), words(limit->form.zero));
            QCOMPARE(box->toolTip(), tip);
        }
        QCOMPARE(formed,
                 QStringList({"repeat", "planned-steps", "until-ci", "max-repeats", "max-minutes", "profile-steps"}));
    }

    // The widgets follow their rows: a row changed here makes a widget changed the same way.
    void aChangedRowMakesAChangedWidget()
    {
        FieldInfo batch = *findField("batch");
        batch.min = 3;
        batch.max = 77;
        batch.help = "pictures per step";
        batch.form.label = "Pictures";
        batch.form.unit = " pics";
        batch.form.zero = "none";
        batch.form.details = "More is faster.";
        const std::unique_ptr<QSpinBox> spin(fieldSpin(batch));
        QCOMPARE(spin->minimum(), 3);
        QCOMPARE(spin->maximum(), 77);
        QCOMPARE(spin->suffix(), QString(" pics"));
        QCOMPARE(spin->specialValueText(), QString("none"));
        QCOMPARE(spin->toolTip(), QString("Pictures per step. More is faster."));
        QCOMPARE(fieldLabel(batch), QString("Pictures"));
        // A tooltip's first word is capitalised unless it is a name, and a sentence ends with a stop.
        QCOMPARE(sentences("cuDNN autotuning (CUDA)", ""), std::string("cuDNN autotuning (CUDA)."));
        QCOMPARE(sentences("intra-op threads", "More."), std::string("Intra-op threads. More."));

        FieldInfo sgd = *findField("optimizer");
        sgd.form.offered = {{"fused", "one kernel"}, {"per-parameter", "a loop"}};
        const std::unique_ptr<QComboBox> combo(fieldCombo(sgd));
        QCOMPARE(combo->count(), 2);
        QCOMPARE(combo->itemText(0), QString("one kernel"));
        QCOMPARE(combo->itemData(0).toInt(), int(Optimizer::Fused));
        QCOMPARE(combo->itemData(1).toInt(), int(Optimizer::PerParameter));
        sgd.form.offered.clear(); // every choice, by its name, in the table's order
        const std::unique_ptr<QComboBox> all(fieldCombo(sgd));
        QCOMPARE(all->count(), int(sgd.choices.size()));
        QCOMPARE(all->itemText(0), QString("per-parameter"));

        FieldInfo tf32 = *findField("tf32");
        tf32.form.label = "Tensor floats";
        const std::unique_ptr<QCheckBox> check(fieldCheck(tf32, "knob:tf32"));
        QCOMPARE(check->text(), QString("Tensor floats"));
        QVERIFY(!check->isChecked()); // RunConfig's default

        supervisor::SweepLimit repeats = supervisor::kRepeatLimit;
        repeats.min = 2;
        repeats.max = 9;
        repeats.defaultValue = 4;
        repeats.form.unit = " runs";
        repeats.form.step = 2;
        const std::unique_ptr<QSpinBox> limit(limitSpin(repeats));
        QCOMPARE(limit->minimum(), 2);
        QCOMPARE(limit->maximum(), 9);
        QCOMPARE(limit->value(), 4);
        QCOMPARE(limit->singleStep(), 2);
        QCOMPARE(limit->suffix(), QString(" runs"));

        supervisor::SweepLimit ci = supervisor::kUntilCiLimit;
        ci.form.step = 0.25;
        const std::unique_ptr<QDoubleSpinBox> real(limitReal(ci));
        QCOMPARE(real->decimals(), 2);
        QCOMPARE(real->minimum(), 0.25);
        ci.minExclusive = false;
        const std::unique_ptr<QDoubleSpinBox> inclusive(limitReal(ci));
        QCOMPARE(inclusive->minimum(), 0.0);
    }

    // A knob the table's rules refuse on the form's configuration is greyed, with the rule's words
    // in front of its tooltip; the same knob on a GPU is not. fp16 likewise, item by item.
    void whatTheRulesRefuseIsGreyed()
    {
        ConfigPanel panel;
        for (const int gpus : {0, 1}) {
            panel.setCudaDevices(gpus);
            const RunConfig probe = panel.baseConfig();
            for (const char *key : {"tf32", "cudnn_benchmark", "channels_last", "cuda_graph"}) {
                QCheckBox *box = find<QCheckBox>(panel, knobObject(key));
                QVERIFY2(box, key);
                const bool refused = tableRefuses(probe, key, "true");
                QCOMPARE(box->isEnabled(), !refused);
                QCOMPARE(box->toolTip() != fieldTip(*findField(key)), refused);
                QVERIFY(box->toolTip().endsWith(fieldTip(*findField(key))));
            }
            // The CUDA knobs are what the device's rules name: refused exactly on the CPU.
            QCOMPARE(tableRefuses(probe, "tf32", "true"), gpus == 0);
            QComboBox *dtype = find<QComboBox>(panel, "field:autocast");
            QVERIFY(dtype);
            const int fp16 = dtype->findText("fp16");
            const QVariant flags = dtype->itemData(fp16, Qt::UserRole - 1);
            QCOMPARE(flags.isValid() && flags.toInt() == 0, tableRefuses(probe, "autocast", "fp16"));
            QCOMPARE(tableRefuses(probe, "autocast", "fp16"), gpus == 0);
        }
        // On the CPU a refused fp16 leaves for bf16, the first the rules allow.
        panel.setCudaDevices(1);
        QComboBox *dtype = find<QComboBox>(panel, "field:autocast");
        dtype->setCurrentText("fp16");
        panel.setDevice("cpu");
        QCOMPARE(dtype->currentText(), QString("bf16"));
    }

    // A limit's box is enabled as its row's enabling rule says: with its flag on, never under the
    // flag that makes it mean nothing.
    void limitsFollowTheirEnablingRules()
    {
        ConfigPanel panel;
        const auto flag = [&](const char *option) -> QCheckBox * {
            if (QString(option) == QLatin1String("until-ci"))
                return panel.untilCiBox();
            return find<QCheckBox>(panel, "maxBatch");
        };
        int ruled = 0;
        for (const supervisor::SweepLimit *limit : supervisor::kSweepLimits) {
            auto *box = find<QAbstractSpinBox>(panel, QStringLiteral("limit:") + QLatin1String(limit->option));
            if (!box)
                continue;
            if (*limit->form.onlyWith) {
                ++ruled;
                flag(limit->form.onlyWith)->setChecked(false);
                QVERIFY2(!box->isEnabled(), limit->option);
                flag(limit->form.onlyWith)->setChecked(true);
                QVERIFY2(box->isEnabled(), limit->option);
            }
            if (*limit->form.unusedWith) {
                ++ruled;
                flag(limit->form.unusedWith)->setChecked(true);
                QVERIFY2(!box->isEnabled(), limit->option);
                flag(limit->form.unusedWith)->setChecked(false);
            }
        }
        QCOMPARE(ruled, 6); // until-ci's three, and repeats, profile steps and the planned run under max-batch
    }
};

QTEST_MAIN(TestPanelForms)
#include "test_panel_forms.moc"
