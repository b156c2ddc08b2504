#include "profile/memory_timeline.h"

#include "profile/pickle_reader.h"

#include <QJsonArray>

#include <algorithm>
#include <map>

namespace stepscope::profile
{
namespace
{

using Kind = PickleValue::Kind;

struct LiveBlock {
    std::int64_t bytes = 0;
    const PickleValue *frames = nullptr;
};

// Frames of the allocator's own machinery and of the libraries under the model: a block's stack
// names the model's code first, and the library only when nothing else is there.
bool libraryFrame(const std::string &file, const std::string &name)
{
    for (const char *part : {"/torch/", "/c10/", "/aten/", "<frozen", "/functorch/"})
        if (file.find(part) != std::string::npos)
            return true;
    for (const char *prefix : {"at::", "c10::", "torch::", "std::", "_Py", "Py", "__libc", "_start"})
        if (name.rfind(prefix, 0) == 0)
            return true;
    return false;
}

// "models/resnet.py:92 forward": the path from the package down (site-packages/ and above say
// nothing), else its last three parts.
std::string frameText(const std::string &file, std::int64_t line, const std::string &name)
{
    std::string path = file;
    if (const auto at = path.rfind("site-packages/"); at != std::string::npos)
        path = path.substr(at + 14);
    else {
        std::size_t cut = path.size();
        for (int parts = 0; parts < 3 && cut != std::string::npos && cut > 0; ++parts)
            cut = path.rfind('/', cut - 1);
        if (cut != std::string::npos && cut > 0)
            path = path.substr(cut + 1);
    }
    std::string out = name.empty() ? std::string("?") : name;
    if (!path.empty())
        out += " (" + path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ")";
    return out;
}

std::vector<std::string> pickFrames(const PickleValue *frames)
{
    std::vector<std::string> own, library;
    if (!frames || frames->kind != Kind::List)
        return {};
    int unresolved = 0;
    for (const auto &f : frames->items) {
        if (!f || f->kind != Kind::Dict)
            continue;
        const std::string file = f->get("filename") ? f->get("filename")->asText() : std::string();
        const std::string name = f->get("name") ? f->get("name")->asText() : std::string();
        const std::int64_t line = f->get("line") ? f->get("line")->asInt() : 0;
        // A C++ frame the allocator could not name ("?? (stepscope-worker:764589)") says nothing to a
        // reader: counted, not listed.
        if (name.empty() || name == "??") {
            ++unresolved;
            continue;
        }
        // The recorder's own frames (the unwinder, the allocator taking the trace) head every C++
        // stack and say nothing of what allocated.
        if (name.rfind("torch::unwind", 0) == 0 || name.rfind("torch::CapturedTraceback", 0) == 0 ||
            name.find("CUDACachingAllocator") != std::string::npos)
            continue;
        auto &into = libraryFrame(file, name) ? library : own;
        if (into.size() < kMaxBlockFrames)
            into.push_back(frameText(file, line, name));
    }
    if (own.empty() && library.empty() && unresolved > 0)
        return {std::to_string(unresolved) + " C++ frames without symbols (the native worker's LibTorch frames)"};
    return own.empty() ? library : own;
}

const PickleValue *listAt(const PickleValue *v)
{
    return v && v->kind == Kind::List ? v : nullptr;
}

std::string fieldText(const PickleValue &dict, std::string_view key)
{
    const PickleValue *v = dict.get(key);
    return v ? v->asText() : std::string();
}

std::int64_t fieldInt(const PickleValue &dict, std::string_view key)
{
    const PickleValue *v = dict.get(key);
    return v ? v->asInt() : 0;
}

// The change an allocator event makes to allocated and reserved bytes.
void eventDelta(const std::string &action, std::int64_t size, std::int64_t &allocated, std::int64_t &reserved)
{
    allocated = reserved = 0;
    if (action == "alloc")
        allocated = size;
    else if (action == "free_completed")
        allocated = -size;
    else if (action == "segment_alloc" || action == "segment_map")
        reserved = size;
    else if (action == "segment_free" || action == "segment_unmap")
        reserved = -size;
}

// At most kMaxMemoryPoints points, each bucket's by its highest allocated: the peak stays.
std::vector<MemoryPoint> thinned(std::vector<MemoryPoint> points)
{
    if (points.size() <= kMaxMemoryPoints)
        return points;
    const std::size_t bucket = (points.size() + kMaxMemoryPoints - 1) / kMaxMemoryPoints;
    std::vector<MemoryPoint> out;
    for (std::size_t at = 0; at < points.size(); at += bucket) {
        const auto end = points.begin() + static_cast<std::ptrdiff_t>(std::min(points.size(), at + bucket));
        out.push_back(
            *std::max_element(points.begin() + static_cast<std::ptrdiff_t>(at), end,
                              [](const MemoryPoint &a, const MemoryPoint &b) { return a.allocated < b.allocated; }));
    }
    return out;
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

const char *toString(SnapshotKind kind)
{
    return kind == SnapshotKind::OutOfMemory ? "out-of-memory" : "step";
}

std::optional<SnapshotKind> snapshotKindFromString(std::string_view text)
{
    if (text == "step")
        return SnapshotKind::Step;
    if (text == "out-of-memory")
        return SnapshotKind::OutOfMemory;
    return std::nullopt;
}

std::optional<MemoryTimeline> summarizeSnapshot(std::string_view pickle, std::string &problem)
{
    const PickleRef root = readPickle(pickle, problem);
    if (!root)
        return std::nullopt;
    const PickleValue *segments = listAt(root->get("segments"));
    const PickleValue *traces = listAt(root->get("device_traces"));
    if (!segments || !traces) {
        problem = "the pickle is not a CUDA memory snapshot (no segments or device_traces)";
        return std::nullopt;
    }
    // The run's device: the one whose trace has events, else the one holding segments (a worker
    // uses one device).
    std::int64_t device = -1;
    for (std::size_t d = 0; d < traces->items.size() && device < 0; ++d)
        if (const PickleValue *t = listAt(traces->items[d].get()); t && !t->items.empty())
            device = static_cast<std::int64_t>(d);
    for (std::size_t s = 0; s < segments->items.size() && device < 0; ++s)
        if (segments->items[s] && segments->items[s]->kind == Kind::Dict)
            device = fieldInt(*segments->items[s], "device");

    MemoryTimeline out;
    // The state at the snapshot: reserved is every segment, allocated every live block.
    std::int64_t reservedEnd = 0;
    std::map<std::int64_t, LiveBlock> live; // by address
    for (const auto &segment : segments->items) {
        if (!segment || segment->kind != Kind::Dict || fieldInt(*segment, "device") != device)
            continue;
        reservedEnd += fieldInt(*segment, "total_size");
        const PickleValue *blocks = listAt(segment->get("blocks"));
        std::int64_t address = fieldInt(*segment, "address");
        for (const auto &b : blocks ? blocks->items : std::vector<PickleRef>{}) {
            if (!b || b->kind != Kind::Dict)
                continue;
            const std::int64_t size = fieldInt(*b, "size");
            // Blocks carry their address since torch 2.1; before, they lay end to end in their segment.
            const std::int64_t blockAddress = b->get("address") ? fieldInt(*b, "address") : address;
            address = blockAddress + size;
            const std::string state = fieldText(*b, "state");
            if (state == "active_allocated" || state == "active_pending_free")
                live[blockAddress] = {size, b->get("frames")};
        }
    }
    std::int64_t allocatedEnd = 0;
    for (const auto &[address, block] : live)
        allocatedEnd += block.bytes;

    const PickleValue *events = device >= 0 && device < static_cast<std::int64_t>(traces->items.size())
                                    ? listAt(traces->items[static_cast<std::size_t>(device)].get())
                                    : nullptr;
    const std::vector<PickleRef> none;
    const std::vector<PickleRef> &entries = events ? events->items : none;
    out.events = static_cast<std::int64_t>(entries.size());
    std::int64_t peakIndex = -1; // -1: the state before the first event (or the state alone)
    if (entries.empty()) {
        out.peakAllocated = allocatedEnd;
        out.peakReserved = reservedEnd;
        out.note = "no allocator history: the state at the snapshot only";
    } else {
        std::int64_t allocated = allocatedEnd, reserved = reservedEnd;
        for (const auto &e : entries) {
            if (!e || e->kind != Kind::Dict)
                continue;
            std::int64_t da = 0, dr = 0;
            eventDelta(fieldText(*e, "action"), fieldInt(*e, "size"), da, dr);
            allocated -= da;
            reserved -= dr;
        }
        if (allocated < 0 || reserved < 0)
            out.note = "the trace does not add up to the state at its end (entries were dropped?): levels are "
                       "relative";
        const std::int64_t t0 =
            entries.front() && entries.front()->kind == Kind::Dict ? fieldInt(*entries.front(), "time_us") : 0;
        out.timeAxis = true;
        for (const auto &e : entries)
            if (!e || e->kind != Kind::Dict || !e->get("time_us"))
                out.timeAxis = false;
        std::vector<MemoryPoint> points;
        points.reserve(entries.size() + 1);
        points.push_back({0, allocated, reserved});
        out.peakAllocated = allocated;
        out.peakReserved = reserved;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            const PickleValue *e = entries[i].get();
            if (e && e->kind == Kind::Dict) {
                std::int64_t da = 0, dr = 0;
                eventDelta(fieldText(*e, "action"), fieldInt(*e, "size"), da, dr);
                allocated += da;
                reserved += dr;
            }
            const double x =
                out.timeAxis ? static_cast<double>(fieldInt(*e, "time_us") - t0) / 1000.0 : static_cast<double>(i + 1);
            points.push_back({x, allocated, reserved});
            if (allocated > out.peakAllocated) {
                out.peakAllocated = allocated;
                peakIndex = static_cast<std::int64_t>(i);
            }
            out.peakReserved = std::max(out.peakReserved, reserved);
        }
        out.points = thinned(std::move(points));
        // A block freed after the peak is known there by its free event, whose frames are where it was
        // freed (often none: autograd frees from its C++ thread). Where it was allocated is the frames
        // of its last alloc event up to the peak.
        std::map<std::int64_t, const PickleValue *> allocFrames;
        for (std::int64_t i = 0; i <= peakIndex && i < static_cast<std::int64_t>(entries.size()); ++i) {
            const PickleValue *e = entries[static_cast<std::size_t>(i)].get();
            if (e && e->kind == Kind::Dict && fieldText(*e, "action") == "alloc")
                allocFrames[fieldInt(*e, "addr")] = e->get("frames");
        }
        // Back from the end to the peak, undoing each event (memory_viz's simulate_memory): what is
        // live just after the peak's event.
        for (auto i = static_cast<std::int64_t>(entries.size()) - 1; i > peakIndex; --i) {
            const PickleValue *e = entries[static_cast<std::size_t>(i)].get();
            if (!e || e->kind != Kind::Dict)
                continue;
            const std::string action = fieldText(*e, "action");
            if (action == "alloc")
                live.erase(fieldInt(*e, "addr"));
            else if (action == "free_completed") {
                const std::int64_t addr = fieldInt(*e, "addr");
                const auto from = allocFrames.find(addr);
                live[addr] = {fieldInt(*e, "size"), from != allocFrames.end() ? from->second : e->get("frames")};
            }
        }
    }
    out.liveBlocks = static_cast<std::int64_t>(live.size());
    std::vector<LiveBlock> biggest;
    for (const auto &[address, block] : live)
        biggest.push_back(block);
    std::stable_sort(biggest.begin(), biggest.end(),
                     [](const LiveBlock &a, const LiveBlock &b) { return a.bytes > b.bytes; });
    for (std::size_t i = 0; i < biggest.size() && i < kMaxMemoryBlocks; ++i)
        out.blocks.push_back({biggest[i].bytes, pickFrames(biggest[i].frames)});
    return out;
}

QJsonObject toJsonObject(const StoredMemory &memory)
{
    QJsonObject o{{"kind", toString(memory.kind)}};
    if (!memory.problem.empty())
        o.insert("problem", q(memory.problem));
    if (!memory.file.empty())
        o.insert("file", q(memory.file));
    if (const auto &t = memory.timeline) {
        QJsonObject s{{"time_axis", t->timeAxis},
                      {"events", static_cast<double>(t->events)},
                      {"peak_allocated", static_cast<double>(t->peakAllocated)},
                      {"peak_reserved", static_cast<double>(t->peakReserved)},
                      {"live_blocks", static_cast<double>(t->liveBlocks)}};
        if (!t->note.empty())
            s.insert("note", q(t->note));
        QJsonArray points;
        for (const auto &p : t->points)
            points.append(QJsonArray{p.x, static_cast<double>(p.allocated), static_cast<double>(p.reserved)});
        s.insert("points", points);
        QJsonArray blocks;
        for (const auto &b : t->blocks) {
            QJsonArray frames;
            for (const auto &f : b.frames)
                frames.append(q(f));
            blocks.append(QJsonObject{{"bytes", static_cast<double>(b.bytes)}, {"frames", frames}});
        }
        s.insert("blocks", blocks);
        o.insert("summary", s);
    }
    return o;
}

StoredMemory storedMemoryFromJson(const QJsonObject &o)
{
    StoredMemory out;
    out.kind = snapshotKindFromString(o.value("kind").toString().toStdString()).value_or(SnapshotKind::Step);
    out.problem = o.value("problem").toString().toStdString();
    out.file = o.value("file").toString().toStdString();
    if (o.value("summary").isObject()) {
        const QJsonObject s = o.value("summary").toObject();
        MemoryTimeline t;
        t.timeAxis = s.value("time_axis").toBool(true);
        t.events = static_cast<std::int64_t>(s.value("events").toDouble());
        t.peakAllocated = static_cast<std::int64_t>(s.value("peak_allocated").toDouble());
        t.peakReserved = static_cast<std::int64_t>(s.value("peak_reserved").toDouble());
        t.liveBlocks = static_cast<std::int64_t>(s.value("live_blocks").toDouble());
        t.note = s.value("note").toString().toStdString();
        for (const auto &v : s.value("points").toArray()) {
            const QJsonArray p = v.toArray();
            t.points.push_back({p.at(0).toDouble(), static_cast<std::int64_t>(p.at(1).toDouble()),
                                static_cast<std::int64_t>(p.at(2).toDouble())});
        }
        for (const auto &v : s.value("blocks").toArray()) {
            MemoryBlock b;
            b.bytes = static_cast<std::int64_t>(v.toObject().value("bytes").toDouble());
            for (const auto &f : v.toObject().value("frames").toArray())
                b.frames.push_back(f.toString().toStdString());
            t.blocks.push_back(std::move(b));
        }
        out.timeline = std::move(t);
    } else if (out.problem.empty()) {
        out.problem = "the stored memory snapshot holds no summary";
    }
    return out;
}

} // namespace stepscope::profile
