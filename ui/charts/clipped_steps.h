#pragma once
// The steps a chart draws above its top edge. The live chart fits its y range to the steady steps,
// so a spike a hundred times taller leaves the plot; a mark at the top edge keeps it from vanishing
// without a trace. Neighbouring spikes share one mark with their count, so that a noisy run gets a
// few marks rather than thousands.
#include "charts/qcustomplot_compat.h"

#include <vector>

namespace stepscope::ui
{

struct ClippedMark {
    double firstStep = 0, lastStep = 0; // the steps it gathers
    int count = 0;
    double tallestStep = 0, tallestMs = 0; // where the mark stands, and what its tooltip says
};

// The points of `series` inside `x` whose value is above `top`, gathered into marks: a point within
// `spacing` steps of a mark's first step joins it. Reads only the points inside `x` (a binary search
// finds them), so a 100,000-step series costs what is on screen.
std::vector<ClippedMark> clippedMarks(const QCPGraphDataContainer &series, const QCPRange &x, double top,
                                      double spacing);

} // namespace stepscope::ui
