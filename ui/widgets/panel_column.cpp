#include "widgets/panel_column.h"

#include "widgets/config_panel.h"

#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

namespace stepscope::ui
{

QWidget *panelColumn(ConfigPanel *panel)
{
    QWidget *actions = panel->actionBar();
    auto *scroll = new QScrollArea;
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(panel->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
    auto *column = new QWidget;
    auto *layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll, 1);
    layout->addWidget(actions);
    actions->setContentsMargins(9, 0, 9, 6);
    return column;
}

} // namespace stepscope::ui
