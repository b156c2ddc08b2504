#include "pages/steps_page.h"

#include "charts/run_overlay_chart.h"
#include "controller/query_job.h"
#include "models/ledger_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace stepscope::ui
{

StepsPage::StepsPage(LedgerModel *model, QueryJob *query, QWidget *parent) : Page(parent), model_(model), query_(query)
{
    choice_ = new QComboBox;
    choice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    note_ = new QLabel;
    chart_ = new RunOverlayChart;
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Show")));
    top->addWidget(choice_);
    top->addWidget(note_, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(chart_, 1);
    connect(choice_, &QComboBox::activated, this, &StepsPage::ask);
    connect(model_, &QAbstractItemModel::modelReset, this, &StepsPage::fillChoices);
    connect(query_, &QueryJob::runSeriesReady, this, &StepsPage::setRuns);
    fillChoices();
}

QCustomPlot *StepsPage::chart() const
{
    return chart_->plot();
}

void StepsPage::clear()
{
    chart_->clear();
}

void StepsPage::fillChoices()
{
    const QVariant previous = choice_->currentData();
    choice_->clear();
    choice_->addItem(tr("one run per configuration"), -1);
    for (int row = 0; row < model_->rowCount(); ++row)
        choice_->addItem(
            tr("every process of %1").arg(model_->index(row, LedgerModel::Configuration).data().toString()), row);
    const int keep = choice_->findData(previous);
    choice_->setCurrentIndex(keep >= 0 ? keep : 0);
    if (model_->rowCount() == 0) {
        chart_->clear();
        note_->setText(tr("No sweep shown."));
        return;
    }
    ask();
}

QVector<StepsPage::Wanted> StepsPage::wanted() const
{
    QVector<Wanted> out;
    const int chosen = choice_->currentData().toInt();
    for (int row = 0; row < model_->rowCount(); ++row) {
        if (chosen >= 0 && row != chosen)
            continue;
        const QString label = model_->index(row, LedgerModel::Configuration).data().toString();
        int process = 0;
        for (const auto &run : model_->runRecordsOf(row)) {
            if (run.stepCount == 0)
                continue;
            ++process;
            out.append({run.id, chosen < 0 ? label : tr("%1 #%2").arg(label).arg(process), row});
            if (chosen < 0)
                break; // one per configuration: its first run that recorded steps
        }
    }
    return out;
}

void StepsPage::ask()
{
    const QVector<Wanted> runs = wanted();
    note_->setText(runs.isEmpty() ? tr("No run recorded steps.")
                                  : tr("Reading %n run(s)…", nullptr, static_cast<int>(runs.size())));
    if (!query_->database().isEmpty())
        query_->requestRunSeries(runs);
}

void StepsPage::setRuns(const OverlayRuns &runs)
{
    chart_->setRuns(runs);
    note_->setText(runs.runs.size() == 1 ? tr("1 run") : tr("%1 runs").arg(runs.runs.size()));
}

} // namespace stepscope::ui
