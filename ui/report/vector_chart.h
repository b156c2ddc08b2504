#pragma once
// A chart as vectors for a report: recorded once on the GUI thread as a QPicture (the plot's own
// drawing commands), then written off it as inline SVG for the HTML and drawn as paths and text in
// the PDF. A raster chart blurs when a reader zooms into a printed comparison and its labels cannot
// be searched or copied; these stay sharp at any size.
#include <QList>
#include <QPicture>
#include <QSize>
#include <QString>

class QCustomPlot;
class QTextDocument;

namespace stepscope::ui
{

struct VectorChart {
    QPicture picture; // drawn at `size` chart pixels from (0, 0)
    QSize size;
    bool isNull() const { return picture.isNull() || size.isEmpty(); }
};

// The plot drawn at `size` (GUI thread: QCustomPlot lays itself out to draw).
VectorChart recordVectorChart(QCustomPlot *plot, QSize size);

// "data:image/svg+xml;base64,...": the chart as an SVG for an <img> (any thread).
QString svgDataUri(const VectorChart &chart, const QString &title);

// In a report's print document, every image named chartResourceName(i) (report_html.h) becomes the
// drawing of charts[i], at the size the layout gave the image. Call after setHtml and before the
// layout is paginated: the object takes the image's place and size, so pagination is unchanged.
void drawChartsAsVectors(QTextDocument &document, const QList<VectorChart> &charts);

} // namespace stepscope::ui
