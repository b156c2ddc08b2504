#pragma once
// The one way to include QCustomPlot in Stepscope. Its header uses Qt's `signals` and `foreach`
// keywords, which the project switches off (QT_NO_KEYWORDS, for the torch `slots` clash); they are
// lent to it here and taken back right after, so no other header sees them.
#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef foreach
#else
#include <qcustomplot.h>
#endif
