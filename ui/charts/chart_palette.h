#pragma once
// Colours of every chart, taken from the widget's QPalette so that charts follow the system's light
// or dark theme. Series colours are fixed hues chosen to stay legible on both backgrounds, because a
// configuration should keep its colour when the theme changes.
#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace stepscope::ui
{

struct ChartColors {
    QColor text;       // axes, tick labels, titles, item text
    QColor background; // plot and legend background
    QColor grid;
    QColor subGrid;
    QColor highlight; // shaded regions (steady window)
    QColor faster;    // improvement (waterfall)
    QColor slower;    // regression (waterfall)
    QColor neutral;   // the baseline's bar
    bool dark = false;
};

ChartColors chartColors(const QPalette &palette);

// Restyles axes, grids, legends and text elements of every axis rect; plottables and items keep
// their own colours (charts restyle those themselves).
void applyChartPalette(QCustomPlot *plot, const QPalette &palette);

// Distinct colour of the index-th series (cycles after the table's end).
QColor chartSeriesColor(int index, const QPalette &palette);

} // namespace stepscope::ui
