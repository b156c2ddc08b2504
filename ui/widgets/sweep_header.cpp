#include "widgets/sweep_header.h"

#include "controller/ledger_job.h"
#include "presenters/activity.h"
#include "presenters/shown_sweep.h"
#include "report/sweep_status.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace stepscope::ui
{
namespace
{

// The knob part of a canonical configuration name ("native cuda b32 224px c1000 tf32+bf16" -> "tf32+bf16").
QString knobsOf(const std::string &configName)
{
    const auto space = configName.rfind(' ');
    return QString::fromStdString(space == std::string::npos ? configName : configName.substr(space + 1));
}

QString localTime(const std::string &iso)
{
    const QDateTime t = QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs);
    return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")) : QString();
}

} // namespace

SweepHeader::SweepHeader(ShownSweep *shown, Activity *activity, QWidget *parent) : QWidget(parent)
{
    title_ = new QLabel;
    title_->setTextFormat(Qt::RichText);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    facts_ = new QLabel;
    facts_->setWordWrap(true);
    facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    activity_ = new QLabel;
    activity_->setStyleSheet(QStringLiteral("QLabel { font-style: italic; }"));
    activity_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    activity_->setVisible(false);
    auto *top = new QHBoxLayout;
    top->addWidget(title_, 1);
    top->addWidget(activity_);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 2);
    layout->setSpacing(1);
    layout->addLayout(top);
    layout->addWidget(facts_);
    clear();
    connect(shown, &ShownSweep::infoChanged, this, &SweepHeader::setSweep);
    connect(shown, &ShownSweep::cleared, this, &SweepHeader::clear);
    connect(activity, &Activity::textChanged, this, &SweepHeader::setActivity);
}

void SweepHeader::clear()
{
    sweepId_ = 0;
    title_->setText(tr("<b>No sweep shown</b>"));
    facts_->setText(tr("Run one with Start, or open one from History (File › Open database for another file)."));
}

void SweepHeader::setSweep(const SweepInfo &info)
{
    const auto &s = info.sweep;
    if (s.id <= 0) {
        clear();
        return;
    }
    sweepId_ = s.id;
    const QJsonObject settings = QJsonDocument::fromJson(QByteArray::fromStdString(s.settingsJson)).object();
    const QLocale locale;
    title_->setText(
        tr("<b>%1</b> &nbsp;·&nbsp; sweep %2 &nbsp;·&nbsp; %3")
            .arg(QString::fromStdString(s.name).toHtmlEscaped())
            .arg(s.id)
            .arg(QString::fromStdString(report::sweepStatusText(s.status, info.runs, info.runs - info.complete))
                     .toHtmlEscaped()));
    QStringList facts;
    const QString device = settings.value("device").toString();
    if (!device.isEmpty())
        facts << device;
    // The processor the steps ran on: the GPU, or on the CPU the CPU's model and the cores it had.
    const QJsonObject env = info.environment
                                ? QJsonDocument::fromJson(QByteArray::fromStdString(info.environment->json)).object()
                                : QJsonObject();
    if (device == QLatin1String("cpu")) {
        const QString cpu = env.value("cpu").toString();
        const QString threads = env.value("cpu_threads").toString();
        facts << (cpu.isEmpty() ? tr("CPU") : threads.isEmpty() ? cpu : tr("%1, %2 threads").arg(cpu, threads));
    } else if (info.environment && !info.environment->gpu.empty()) {
        facts << QString::fromStdString(info.environment->gpu);
    }
    // The model with the parameters its runs reported (its name alone in older files).
    if (const std::string models = report::modelsText(info.models); !models.empty())
        facts << QString::fromStdString(models);
    if (settings.contains("batch"))
        facts << tr("batch %1").arg(settings.value("batch").toInt());
    if (settings.contains("image_size"))
        facts << tr("%1 px").arg(settings.value("image_size").toInt());
    const int configurations = settings.value("configurations").toInt(static_cast<int>(info.configJsons.size()));
    const int repeats = settings.value("repeats").toInt(1);
    facts << (configurations == 1 ? tr("1 configuration") : tr("%1 configurations").arg(configurations)) +
                 QStringLiteral(" × ") + (repeats == 1 ? tr("1 repeat") : tr("%1 repeats").arg(repeats));
    if (info.runs > 0)
        facts << tr("%1 of %2 runs complete").arg(info.complete).arg(info.runs);
    if (s.plannedSteps > 0)
        facts << tr("planned %1 steps").arg(locale.toString(static_cast<qlonglong>(s.plannedSteps)));
    if (!s.baselineConfig.empty())
        facts << tr("baseline: %1").arg(knobsOf(s.baselineConfig));
    if (const QString when = localTime(s.created); !when.isEmpty())
        facts << when;
    facts_->setText(facts.join(QStringLiteral("  ·  ")));
    facts_->setToolTip(QString::fromStdString(s.settingsJson));
}

void SweepHeader::setActivity(const QString &text)
{
    activity_->setText(text);
    activity_->setVisible(!text.isEmpty());
}

QString SweepHeader::text() const
{
    return QTextDocumentFragment::fromHtml(title_->text()).toPlainText() + QLatin1Char('\n') + facts_->text();
}

QString SweepHeader::activity() const
{
    return activity_->isVisible() ? activity_->text() : QString();
}

} // namespace stepscope::ui
