#pragma once
// What the break-even chart shows, computed from the ledger alone: the line T1 + (n - 1) * t of each
// configuration with a steady state, the axis ranges, the crossings with the baseline and their
// intervals, the crossing that decides the recommendation, which line is the recommended one, the
// planned run length N, and the words and points of every label. No drawing here (BreakEvenChart
// turns this into plot items), so the geometry is tested without a plot; what depends on fonts,
// colours or pixels (eliding legend names, label sizes, label places) is the chart's.
#include "report/ledger.h"

#include <QPointF>
#include <QString>
#include <QVector>

#include <optional>

namespace stepscope::ui
{

struct BreakEvenGeometry {
    // One configuration's cumulative time against the number of steps, sampled at `keys`.
    struct Line {
        int row = 0;            // ledger row
        QVector<double> values; // seconds, one per key
        QString shortName;      // the legend's name before eliding ("+bf16")
        QString suffix;         // its tags: " (baseline)", " (runner-up)", " ★ recommended for N"
        QString fullName;       // the full label with the suffix (the legend entry's tooltip)
        bool recommended = false;
    };
    // A crossing's interval as drawn (steps; high is the right edge of the plot for "never").
    struct Interval {
        int row = 0; // whose colour it takes
        double low = 0, high = 0;
        bool openEnded = false; // the upper bound is "never"
        double seconds = 0;     // the height it is drawn at (the crossing's cumulative time)
    };
    // A line's crossing with the baseline's, at the ledger's break-even step count.
    struct Crossing {
        int row = 0;
        QPointF at;        // (steps, seconds)
        int interval = -1; // into intervals, -1 without one
        // The crossing is the deciding one too: its marker and label are the deciding crossing's.
        bool decides = false;
        QString text; // the label ("1,234 steps [80-150] · 167 warm"), unused when it decides
        // The break-even in the start state the lines are not drawn for ("167 warm"); "" without one.
        QString otherText;
    };
    // The crossing of the recommended configuration's line with the runner-up's.
    struct DecidingCrossing {
        int best = 0, runnerUp = 0;      // ledger rows
        double steps = 0;                // where the lines cross
        bool bestOvertakes = true;       // false: the runner-up would overtake, after the planned run
        std::optional<double> low, high; // its interval where the ledger has one (high +inf: never)
    };

    QVector<double> keys; // sample steps, 1 .. xMax, spaced evenly on the log axis
    QVector<Line> lines;  // in row order
    double xMax = 10;     // the step axis runs 1 .. xMax
    double yMin = 0.1, yMax = 1000;
    QVector<Crossing> crossings; // in row order
    QVector<Interval> intervals; // the crossings' in row order, then the deciding crossing's
    // None without a runner-up, when the best is ahead from step 1, or when the lines cross only far
    // beyond the planned run.
    std::optional<DecidingCrossing> deciding;
    QPointF decidingAt;        // (steps, seconds) of its marker
    int decidingInterval = -1; // into intervals, when it is drawn with the marker (neither row the baseline)
    QString decidingText;      // its label
    double planned = 0;        // where the planned-N line stands, when shown
    bool plannedShown = false; // a planned run and at least one line
    QString plannedText;       // "planned N = 10,000"

    const Line *lineForRow(int row) const;
};

// The chart's geometry for a ledger and a planned run of `plannedSteps` steps (0: none).
BreakEvenGeometry breakEvenGeometry(const report::Ledger &ledger, double plannedSteps);

} // namespace stepscope::ui
