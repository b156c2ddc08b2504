#include "charts/clipped_steps.h"

#include "charts/qcustomplot_compat.h"

namespace stepscope::ui
{

std::vector<ClippedMark> clippedMarks(const QCPGraphDataContainer &series, const QCPRange &x, double top,
                                      double spacing)
{
    std::vector<ClippedMark> marks;
    for (auto it = series.findBegin(x.lower, false); it != series.findEnd(x.upper, false); ++it) {
        if (!(it->value > top))
            continue;
        if (marks.empty() || it->key - marks.back().firstStep > spacing)
            marks.push_back({it->key, it->key, 0, it->key, it->value});
        ClippedMark &m = marks.back();
        m.lastStep = it->key;
        ++m.count;
        if (it->value > m.tallestMs) {
            m.tallestStep = it->key;
            m.tallestMs = it->value;
        }
    }
    return marks;
}

} // namespace stepscope::ui
