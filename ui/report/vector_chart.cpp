#include "report/vector_chart.h"

#include "charts/qcustomplot_compat.h"
#include "report/report_html.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextObjectInterface>

#include <utility>
#include <vector>

namespace stepscope::ui
{
namespace
{

constexpr int kChartObjectType = QTextFormat::UserObject + 1;
constexpr int kChartIndexProperty = QTextFormat::UserProperty + 1;

// QPainter::drawPicture scales a picture by the device's DPI over the picture's (72 over 96 on an
// SVG, 1200 over 96 on the PDF); the charts are laid out in the painter's own coordinates already.
void playAtPainterScale(QPainter &painter, const QPicture &picture)
{
    const QPaintDevice *device = painter.device();
    if (device && device->logicalDpiX() > 0 && device->logicalDpiY() > 0)
        painter.scale(qreal(picture.logicalDpiX()) / device->logicalDpiX(),
                      qreal(picture.logicalDpiY()) / device->logicalDpiY());
    painter.drawPicture(0, 0, picture);
}

// Draws the chart a format names into the rectangle the document's layout gives it. Owned by the
// document; lives on the thread the report is written on.
class ChartObject : public QObject, public QTextObjectInterface
{
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
  public:
    ChartObject(QList<VectorChart> charts, QObject *parent) : QObject(parent), charts_(std::move(charts)) {}

    QSizeF intrinsicSize(QTextDocument *, int, const QTextFormat &format) override
    {
        return QSizeF(format.doubleProperty(QTextFormat::ImageWidth), format.doubleProperty(QTextFormat::ImageHeight));
    }

    void drawObject(QPainter *painter, const QRectF &rect, QTextDocument *, int, const QTextFormat &format) override
    {
        const int index = format.intProperty(kChartIndexProperty);
        if (index < 0 || index >= charts_.size() || charts_[index].isNull())
            return;
        const VectorChart &chart = charts_[index];
        painter->save();
        painter->translate(rect.topLeft());
        painter->scale(rect.width() / chart.size.width(), rect.height() / chart.size.height());
        painter->setClipRect(QRect(QPoint(0, 0), chart.size));
        playAtPainterScale(*painter, chart.picture);
        painter->restore();
    }

  private:
    QList<VectorChart> charts_;
};

} // namespace

VectorChart recordVectorChart(QCustomPlot *plot, QSize size)
{
    VectorChart chart;
    if (!plot || size.isEmpty())
        return chart;
    QCPPainter painter;
    if (!painter.begin(&chart.picture))
        return chart;
    painter.setMode(QCPPainter::pmVectorized);
    plot->toPainter(&painter, size.width(), size.height());
    painter.end();
    plot->replot(QCustomPlot::rpQueuedReplot); // drawing laid it out at `size`; the screen needs its own
    chart.size = size;
    return chart;
}

QString svgDataUri(const VectorChart &chart, const QString &title)
{
    if (chart.isNull())
        return {};
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(chart.size);
        generator.setViewBox(QRect(QPoint(0, 0), chart.size));
        generator.setTitle(title);
        QPainter painter;
        if (!painter.begin(&generator))
            return {};
        playAtPainterScale(painter, chart.picture);
    } // the generator closes the document when it goes away
    return QStringLiteral("data:image/svg+xml;base64,") + QString::fromLatin1(buffer.data().toBase64());
}

void drawChartsAsVectors(QTextDocument &document, const QList<VectorChart> &charts)
{
    if (charts.isEmpty())
        return;
    // Where the chart images are: collected first, replaced from the end so positions hold.
    std::vector<std::pair<int, QTextImageFormat>> images;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (fragment.charFormat().isImageFormat())
                images.emplace_back(fragment.position(), fragment.charFormat().toImageFormat());
        }
    document.documentLayout()->registerHandler(kChartObjectType, new ChartObject(charts, &document));
    for (auto it = images.rbegin(); it != images.rend(); ++it) {
        const QTextImageFormat &image = it->second;
        int index = -1;
        for (int i = 0; i < charts.size() && index < 0; ++i)
            if (image.name() == chartResourceName(i) && !charts[i].isNull())
                index = i;
        if (index < 0)
            continue;
        const QSize natural = charts[index].size;
        const qreal width = image.width() > 0 ? image.width() : natural.width();
        const qreal height = image.height() > 0 ? image.height() : width * natural.height() / natural.width();
        QTextCharFormat object;
        object.setObjectType(kChartObjectType);
        object.setProperty(kChartIndexProperty, index);
        object.setProperty(QTextFormat::ImageWidth, width);
        object.setProperty(QTextFormat::ImageHeight, height);
        QTextCursor cursor(&document);
        cursor.setPosition(it->first);
        cursor.setPosition(it->first + 1, QTextCursor::KeepAnchor);
        cursor.insertText(QString(QChar::ObjectReplacementCharacter), object);
    }
}

} // namespace stepscope::ui

#include "vector_chart.moc"
