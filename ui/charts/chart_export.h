#pragma once
// Charts to files (PNG, SVG, PDF, chosen by the suffix) and to images for the report. Files are
// written through QSaveFile: a failed export never leaves half a file where the user asked for one.
#include <QImage>
#include <QSize>
#include <QString>

class QCustomPlot;

namespace stepscope::ui
{

// width/height 0: the plot's on-screen size, or 960x600 when it has never been shown.
// Returns false with a user-facing message in *error (which may be null).
bool saveChart(QCustomPlot *plot, const QString &path, QString *error, int width = 0, int height = 0);

// The chart drawn at `size` pixels (an invalid size: as saveChart's default). With scale > 1 the
// image has scale times the pixels and that devicePixelRatio: the same picture, sharp in print.
QImage renderChart(QCustomPlot *plot, QSize size, qreal scale = 1.0);

} // namespace stepscope::ui
