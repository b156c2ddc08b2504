#include "widgets/panel_knobs.h"

#include "widgets/field_widgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace stepscope::ui
{

// The object names are the knobs' names of config/presets.h, which the window's shortcuts and the
// tests ask for (ConfigPanel::knobBox).
KnobsGroup::KnobsGroup(QWidget *parent)
    : QGroupBox(tr("Optimizations"), parent), tf32(fieldCheck(tableField("tf32"), "knob:tf32")),
      cudnn(fieldCheck(tableField("cudnn_benchmark"), "knob:cudnn-bench")),
      autocast(new QCheckBox(fieldLabel(tableField("autocast")))),
      autocastDtype(fieldCombo(tableField("autocast"), false)),
      channelsLast(fieldCheck(tableField("channels_last"), "knob:channels-last")),
      graph(fieldCheck(tableField("cuda_graph"), "knob:cuda-graph")), optimizer(fieldCombo(tableField("optimizer")))
{
    // Autocast is a choice of three: the checkbox says off, the box beside it the precision.
    autocast->setObjectName("knob:autocast");
    autocast->setToolTip(autocastDtype->toolTip());
    auto *autocastRow = new QHBoxLayout;
    autocastRow->addWidget(autocast);
    autocastRow->addWidget(autocastDtype);
    autocastRow->addStretch();
    auto *optimizerRow = new QHBoxLayout;
    optimizerRow->addWidget(new QLabel(fieldLabel(tableField("optimizer"))));
    optimizerRow->addWidget(optimizer, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(tf32);
    layout->addWidget(cudnn);
    layout->addLayout(autocastRow);
    layout->addWidget(channelsLast);
    layout->addWidget(graph);
    layout->addLayout(optimizerRow);
}

std::vector<QCheckBox *> KnobsGroup::checks() const
{
    return {tf32, cudnn, autocast, channelsLast, graph};
}

void KnobsGroup::updateEnabled(const RunConfig &probe)
{
    const std::pair<QCheckBox *, const char *> flags[] = {
        {tf32, "tf32"}, {cudnn, "cudnn_benchmark"}, {channelsLast, "channels_last"}, {graph, "cuda_graph"}};
    for (const auto &[box, key] : flags) {
        const QString why = refusal(probe, key, "true");
        box->setEnabled(why.isEmpty());
        const QString tip = fieldTip(tableField(key));
        box->setToolTip(why.isEmpty() ? tip : why + QStringLiteral("\n\n") + tip);
    }
    autocastDtype->setEnabled(autocast->isChecked());
    greyRefusedChoices(autocastDtype, tableField("autocast"), probe);
}

} // namespace stepscope::ui
