#pragma once
// Common frame of the dashboard's charts: a QWidget holding one QCustomPlot, styled from the
// widget's palette and restyled whenever the palette (light/dark theme) changes. A double click or
// Home (with the chart focused) undoes the user's zoom and drag on every chart (resetZoom()).
#include <QHash>
#include <QPair>
#include <QWidget>

#include <functional>

class QCustomPlot;
class QCPAxis;
class QCPTextElement;

namespace stepscope::ui
{

class ChartWidget : public QWidget
{
    Q_OBJECT
  public:
    explicit ChartWidget(QWidget *parent = nullptr);

    QCustomPlot *plot() const { return plot_; }
    // Optional title row above the axis rect; an empty text hides it.
    void setTitle(const QString &title);
    QString title() const;
    // Redraws the plot soon if the chart is on screen, else once it shows: six of the dashboard's
    // seven charts are on hidden pages at any time, and each would otherwise redraw every point on
    // every change, on the UI thread, for no one to see.
    void requestReplot();
    // Back to the ranges the chart itself last set on each axis, before the user's wheel and drags.
    // Charts whose view follows their data (the live chart) resume following instead.
    virtual void resetZoom();

  protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    // Called after the frame took the new palette; charts recolour their plottables and items here.
    virtual void paletteChanged() {}
    // Widgets are touched from the UI thread only; batches from workers must be queued to it.
    void assertUiThread() const;
    // Category axes rotate long tick labels; QCustomPlot does not draw a label that leaves the
    // viewport, so the last labels ("+compile-reduce-overhead") would vanish at the right edge.
    // Reserves a right margin for them. `labels` in axis order, `degrees` as on the x axis.
    void reserveRoomForTickLabels(const QStringList &labels, double degrees);
    // The legend in a row of its own under the axis rect, where it never covers the data, filled
    // `columns` entries to a row.
    void moveLegendBelow(int columns);
    // Step index on x, ms on y, drag and wheel zoom, and the fast polyline path for long series.
    void useStepAxes();
    // Shows textAt(the mouse's position in plot pixels) as the plot's tooltip as the mouse moves, and
    // none where it is empty: QCustomPlot draws items, not widgets, so Qt has no tooltip for them.
    void showHoverText(std::function<QString(const QPointF &)> textAt);

  private:
    void restyle();
    void watchRanges();

    QCustomPlot *plot_ = nullptr;
    // Per axis, the range the chart's own code set last (rescales, rebuilds), never the user's.
    QHash<QCPAxis *, QPair<double, double>> fitted_;
    QCPTextElement *title_ = nullptr;
    bool replotWhenShown_ = false; // a change came while the chart was hidden
};

} // namespace stepscope::ui
