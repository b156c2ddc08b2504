#pragma once
// One run as the detail dialog shows it: status, failure with its fix, the torch.compile section
// (cache state and directories, compile time by phase, graphs, breaks, recompiles, CUDA graph
// skips) and the worker's log. Rich text for a QTextBrowser, built here so that tests read the
// words rather than pixels.
#include "report/compile_record.h"
#include "store/store.h"

#include <QString>

namespace stepscope::ui
{

// Whether the run's configuration asks for torch.compile (its config JSON has a compile mode).
bool runIsCompiled(const store::RunRecord &run);
// The compile record's reading (core/report/compile_record.h), as every view of a run uses it.
using report::CompileRecord;
using report::parseCompileRecord;
using report::runNotCompiled;
using report::notCompiledText;
using report::compilePhaseName;
using report::compileSettingsText;
using report::compileCountsText;
using report::cacheCountsText;

// The whole detail: what the dialog shows for one run.
QString runDetailHtml(const store::RunRecord &run);
// The torch.compile section alone (empty for a run without compile).
QString compileSectionHtml(const store::RunRecord &run);
// Which machine caches the run's first step found, and what each held before and after it.
QString machineCachesHtml(const store::RunRecord &run);
// "#12, repeat 2, complete": one line to pick the run in a list of repeats.
QString runChoiceText(const store::RunRecord &run);

} // namespace stepscope::ui
