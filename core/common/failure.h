#pragma once
// Failure categories of DESIGN.md. They are fixed: the store keeps their names, the UI shows the
// fix next to the message, and both workers (C++ and Python) emit the same names.
#include <optional>
#include <string>
#include <string_view>

namespace stepscope
{

enum class FailureCategory {
    InvalidConfig,
    CudaUnavailable,
    PythonNotFound,
    TorchMissing,
    TorchTooOld,
    TorchVersionMismatch,
    TritonMissing,
    TritonVersionMismatch,
    CachePathTooLong,
    OutOfMemory,
    CompileFailed,
    GraphCaptureFailed,
    DistributedFailed, // a data-parallel run: process group init, a rank that died or hung
    ModelFailed,       // the model named could not be built: a missing package, a factory that raised (issue 30)
    WorkerCrashed,
    Timeout,
    Cancelled,
    Internal,
};

// "invalid-config", "out-of-memory", ...
std::string_view toString(FailureCategory c);
std::optional<FailureCategory> failureCategoryFromString(std::string_view s);
// One sentence the user can act on.
std::string_view fixFor(FailureCategory c);

// A failure as a value: the category, a one-line message, and the full detail (log, trace).
struct Failure {
    FailureCategory category = FailureCategory::Internal;
    std::string message;
    std::string detail;
};

// The fix for this failure: a known error's own (its message or detail names it, such as the
// cudagraph-trees "overwritten by a subsequent run" error of a compiled whole step), else its
// category's. Views show this one wherever they have the failure itself.
std::string_view fixFor(const Failure &failure);

// Lifecycle of a run row.
enum class RunStatus { Queued, Running, Complete, Failed, Cancelled, Interrupted };
std::string_view toString(RunStatus s);
std::optional<RunStatus> runStatusFromString(std::string_view s);

} // namespace stepscope
