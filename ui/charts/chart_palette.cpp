#include "charts/chart_palette.h"

#include "charts/qcustomplot_compat.h"

#include <array>

namespace stepscope::ui
{
namespace
{

// Lightness of the window background decides the theme: QPalette has no "dark" flag of its own.
bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                            float(a.blueF() * (1 - t) + b.blueF() * t));
}

void styleAxis(QCPAxis *axis, const ChartColors &c)
{
    const QPen line(c.text, 0);
    axis->setBasePen(line);
    axis->setTickPen(line);
    axis->setSubTickPen(line);
    axis->setTickLabelColor(c.text);
    axis->setLabelColor(c.text);
    axis->grid()->setPen(QPen(c.grid, 0, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(c.subGrid, 0, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

} // namespace

ChartColors chartColors(const QPalette &palette)
{
    ChartColors c;
    c.dark = isDark(palette);
    c.text = palette.color(QPalette::WindowText);
    c.background = palette.color(QPalette::Base);
    c.grid = mix(c.background, c.text, 0.22);
    c.subGrid = mix(c.background, c.text, 0.10);
    c.highlight = palette.color(QPalette::Highlight);
    // Brighter on dark backgrounds so the bars do not sink into the background.
    c.faster = c.dark ? QColor(0x5c, 0xc8, 0x6b) : QColor(0x2e, 0x8b, 0x3e);
    c.slower = c.dark ? QColor(0xf0, 0x6a, 0x5f) : QColor(0xc6, 0x3a, 0x2f);
    c.neutral = mix(c.background, c.text, 0.45);
    return c;
}

void applyChartPalette(QCustomPlot *plot, const QPalette &palette)
{
    const ChartColors c = chartColors(palette);
    plot->setBackground(QBrush(c.background));
    for (QCPAxisRect *rect : plot->axisRects()) {
        rect->setBackground(Qt::NoBrush);
        for (QCPAxis *axis : rect->axes())
            styleAxis(axis, c);
    }
    // Legends and text elements may sit in an inset or in the plot layout; all are children of the plot.
    for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
        QColor fill = c.background;
        fill.setAlpha(220);
        legend->setBrush(QBrush(fill));
        legend->setBorderPen(QPen(c.grid, 0));
        legend->setTextColor(c.text);
    }
    for (QCPTextElement *text : plot->findChildren<QCPTextElement *>())
        text->setTextColor(c.text);
}

QColor chartSeriesColor(int index, const QPalette &palette)
{
    // Hues spaced for distinction (and for common colour-vision deficiencies); two lightness sets.
    static const std::array<QRgb, 10> light = {0x1f5fa8, 0xd9730d, 0x2e8b3e, 0xb8323b, 0x7b52ab,
                                               0x8c5a2b, 0xc2479c, 0x5f6b73, 0x9a9a1e, 0x1c9aa8};
    static const std::array<QRgb, 10> dark = {0x6aa8f0, 0xf5a25d, 0x66c979, 0xf07178, 0xb496e0,
                                              0xa0785a, 0xee85cc, 0xaab4bc, 0xd4d45a, 0x5ad2e0};
    const auto &table = isDark(palette) ? dark : light;
    const int n = int(table.size());
    return QColor(table[std::size_t(((index % n) + n) % n)]);
}

} // namespace stepscope::ui
