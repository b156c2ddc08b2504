#pragma once
// Reads the Python pickles a CUDA memory snapshot comes in (memory_timeline.h): Python's
// pickle.dump at protocols 2 to 4 (the Python worker) and LibTorch's own pickler
// (torch::cuda::_memory_snapshot_pickled, the native worker). The opcodes are those of
// pytorch.org/memory_viz's reader (torch/utils/viz/MemoryViz.js), the viewer these files are kept
// for: a pickle it opens, this reads, and nothing more (no GLOBAL, no REDUCE: no code runs).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepscope::profile
{

// A value of the pickle. Lists and dicts are shared: a pickle names an object once (its memo) and
// may refer to it again, and a list is memoized before its items arrive.
struct PickleValue {
    enum class Kind { None, Bool, Int, Float, String, List, Dict };
    Kind kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;
    std::vector<std::shared_ptr<PickleValue>> items;                                            // list, tuple
    std::vector<std::pair<std::shared_ptr<PickleValue>, std::shared_ptr<PickleValue>>> entries; // dict

    // A dict's value under a string key; null when absent or not a dict.
    const PickleValue *get(std::string_view key) const;
    // The number a value holds (an int or a float); `fallback` for anything else.
    double number(double fallback = 0) const;
    std::int64_t asInt(std::int64_t fallback = 0) const;
    std::string asText() const { return kind == Kind::String ? text : std::string(); }
};
using PickleRef = std::shared_ptr<PickleValue>;

// The pickle's one object, or null with `problem` saying where the bytes stopped making sense.
PickleRef readPickle(std::string_view bytes, std::string &problem);

} // namespace stepscope::profile
