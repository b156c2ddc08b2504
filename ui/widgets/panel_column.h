#pragma once
// The left-hand column: the configuration panel scrolled, with its action bar (the planned run
// and Start/Stop) pinned under it, so that both stay in view on a 1280x720 screen.
class QWidget;

namespace stepscope::ui
{

class ConfigPanel;

QWidget *panelColumn(ConfigPanel *panel);

} // namespace stepscope::ui
