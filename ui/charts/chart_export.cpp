#include "charts/chart_export.h"

#include "charts/qcustomplot_compat.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImageWriter>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <algorithm>

namespace stepscope::ui
{
namespace
{

QSize exportSize(const QCustomPlot *plot, int width, int height)
{
    // A widget that was never laid out has a meaningless size (100x30 for a child).
    const QSize fallback = plot->isVisible() ? plot->size() : QSize(960, 600);
    return QSize(width > 0 ? width : fallback.width(), height > 0 ? height : fallback.height());
}

void setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
}

// Exporting lays the plot out at the export size; the widget must be laid out again for the screen.
void restoreScreenLayout(QCustomPlot *plot)
{
    plot->replot(QCustomPlot::rpQueuedReplot);
}

bool drawVector(QCustomPlot *plot, QPaintDevice *device, QSize size)
{
    QCPPainter painter;
    if (!painter.begin(device))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    restoreScreenLayout(plot);
    return true;
}

QByteArray svgBytes(QCustomPlot *plot, QSize size, bool *ok)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(QStringLiteral("Stepscope chart"));
    *ok = drawVector(plot, &generator, size);
    return buffer.data();
}

QByteArray pdfBytes(QCustomPlot *plot, QSize size, bool *ok)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Stepscope"));
        // One chart pixel is one PostScript point, on a page exactly the chart's size.
        writer.setResolution(72);
        writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        *ok = drawVector(plot, &writer, size);
    } // the writer finishes the document when it goes away
    return buffer.data();
}

QByteArray pngBytes(QCustomPlot *plot, QSize size, bool *ok)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    *ok = writer.write(renderChart(plot, size));
    return buffer.data();
}

} // namespace

bool saveChart(QCustomPlot *plot, const QString &path, QString *error, int width, int height)
{
    if (!plot) {
        setError(error, QObject::tr("There is no chart to export."));
        return false;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QSize size = exportSize(plot, width, height);
    bool ok = false;
    QByteArray bytes;
    if (suffix == QLatin1String("png"))
        bytes = pngBytes(plot, size, &ok);
    else if (suffix == QLatin1String("svg"))
        bytes = svgBytes(plot, size, &ok);
    else if (suffix == QLatin1String("pdf"))
        bytes = pdfBytes(plot, size, &ok);
    else {
        const QString what =
            suffix.isEmpty() ? QObject::tr("a file without a suffix") : QStringLiteral("\".%1\"").arg(suffix);
        setError(error,
                 QObject::tr("Cannot export a chart as %1: use a file name ending in .png, .svg or .pdf.").arg(what));
        return false;
    }
    if (!ok || bytes.isEmpty()) {
        setError(error, QObject::tr("Could not draw the chart as %1.").arg(suffix.toUpper()));
        return false;
    }

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        setError(error, QObject::tr("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        setError(error, QObject::tr("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

QImage renderChart(QCustomPlot *plot, QSize size, qreal scale)
{
    if (!plot)
        return {};
    if (!size.isValid() || size.isEmpty())
        size = exportSize(plot, 0, 0);
    scale = std::max<qreal>(scale, 1.0);
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QCPPainter painter;
    if (!painter.begin(&image))
        return {};
    if (scale > 1.0) {
        // Lines keep their width in chart pixels (QCustomPlot's own toPixmap does the same).
        painter.setMode(QCPPainter::pmNonCosmetic);
        painter.scale(scale, scale);
    }
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    restoreScreenLayout(plot);
    image.setDevicePixelRatio(scale);
    return image;
}

} // namespace stepscope::ui
