// A CUDA memory snapshot (issue 31.2): the pickle read as memory_viz reads it (Python's protocol 4
// and the memo opcodes of protocol 2), replayed into allocated and reserved over the step and the
// biggest blocks at its peak with their frames, and its stored JSON's round trip. The fixtures and
// their figures: tests/data/make_memory_snapshots.py.
#include "profile/memory_timeline.h"
#include "profile/pickle_reader.h"
#include "profile/profile_summary.h"

#include <QFile>

#include <gtest/gtest.h>

namespace stepscope::profile
{
namespace
{

constexpr std::int64_t kMiB = 1 << 20;

std::string fixture(const char *name)
{
    QFile f(QString(STEPSCOPE_SOURCE_DIR) + "/tests/data/" + name);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << name;
    return f.readAll().toStdString();
}

class SnapshotPickles : public ::testing::TestWithParam<const char *>
{
};

TEST_P(SnapshotPickles, StepReplaysToLevelsPeakAndBiggestLiveBlocks)
{
    std::string problem;
    const auto t = summarizeSnapshot(fixture(GetParam()), problem);
    ASSERT_TRUE(t) << problem;
    EXPECT_EQ(t->events, 9);
    EXPECT_TRUE(t->timeAxis);
    ASSERT_EQ(t->points.size(), 10u); // the level before the first event, then one per event
    // A segment and a free_requested move nothing allocated: 17 and 18 twice.
    const std::int64_t allocated[] = {5, 9, 17, 17, 18, 18, 14, 16, 8, 6};
    for (std::size_t i = 0; i < 10; ++i)
        EXPECT_EQ(t->points[i].allocated, allocated[i] * kMiB) << i;
    EXPECT_EQ(t->points.front().reserved, 20 * kMiB);
    EXPECT_EQ(t->points.back().reserved, 22 * kMiB);
    EXPECT_DOUBLE_EQ(t->points.back().x, 0.6); // ms after the first event
    EXPECT_EQ(t->peakAllocated, 18 * kMiB);
    EXPECT_EQ(t->peakReserved, 22 * kMiB);
    EXPECT_EQ(t->note, "");
    // Live at the peak, largest first: layer1's, the parameters (no stack: before history), conv1's,
    // the gradient's; library frames (torch/nn/modules) and unknown ones ("??") left out.
    EXPECT_EQ(t->liveBlocks, 4);
    ASSERT_EQ(t->blocks.size(), 4u);
    EXPECT_EQ(t->blocks[0].bytes, 8 * kMiB);
    EXPECT_EQ(t->blocks[0].frames, (std::vector<std::string>{"_forward_impl (torchvision/models/resnet.py:270)",
                                                             "step (/work/train.py:12)"}));
    EXPECT_EQ(t->blocks[1].bytes, 5 * kMiB);
    EXPECT_TRUE(t->blocks[1].frames.empty());
    EXPECT_EQ(t->blocks[2].bytes, 4 * kMiB);
    EXPECT_EQ(t->blocks[2].frames, (std::vector<std::string>{"_forward_impl (torchvision/models/resnet.py:268)"}));
    EXPECT_EQ(t->blocks[3].frames, (std::vector<std::string>{"step (/work/train.py:40)"}));
}

INSTANTIATE_TEST_SUITE_P(Protocols, SnapshotPickles,
                         ::testing::Values("memory-snapshot-step.pickle", "memory-snapshot-step-p2.pickle"));

TEST(PickleReader, ReadsValuesAndRefusesWhatIsNoSnapshot)
{
    std::string problem;
    // {"a": [1, -2, 3.5, True, None, "x"]} at protocol 2, by hand: LONG1 -2 is one byte 0xfe.
    const std::string bytes("\x80\x02}q\x00(X\x01\x00\x00\x00"
                            "aq\x01](K\x01\x8a\x01\xfeG@\x0c\x00\x00\x00\x00\x00\x00"
                            "\x88NX\x01\x00\x00\x00xeu.",
                            41);
    const PickleRef v = readPickle(bytes, problem);
    ASSERT_TRUE(v) << problem;
    const PickleValue *a = v->get("a");
    ASSERT_TRUE(a && a->kind == PickleValue::Kind::List);
    ASSERT_EQ(a->items.size(), 6u);
    EXPECT_EQ(a->items[0]->asInt(), 1);
    EXPECT_EQ(a->items[1]->asInt(), -2);
    EXPECT_DOUBLE_EQ(a->items[2]->number(), 3.5);
    EXPECT_TRUE(a->items[3]->boolean);
    EXPECT_EQ(a->items[4]->kind, PickleValue::Kind::None);
    EXPECT_EQ(a->items[5]->asText(), "x");

    // Code to run (GLOBAL), a cut-off pickle, protocol 5 (memory_viz reads 2 to 4): refused, with where.
    EXPECT_FALSE(readPickle(std::string("\x80\x02"
                                        "cos\nsystem\n.",
                                        14),
                            problem));
    EXPECT_NE(problem.find("opcode 0x63"), std::string::npos) << problem;
    EXPECT_FALSE(readPickle(bytes.substr(0, 20), problem));
    EXPECT_NE(problem.find("ends"), std::string::npos) << problem;
    EXPECT_FALSE(readPickle(std::string("\x80\x05N.", 4), problem));
    EXPECT_NE(problem.find("protocol 5"), std::string::npos) << problem;
    EXPECT_FALSE(summarizeSnapshot(std::string("\x80\x02N.", 4), problem));
    EXPECT_NE(problem.find("not a CUDA memory snapshot"), std::string::npos) << problem;
}

TEST(MemoryTimeline, StoredInTheProfileAndBack)
{
    std::string problem;
    StoredProfile stored;
    stored.problem = "the profiler failed: x"; // a profile's problem leaves the snapshot alone
    stored.memory = StoredMemory{};
    stored.memory->file = "m.sqlite.traces/run-3-abcdef.memory.pickle.gz";
    stored.memory->timeline = summarizeSnapshot(fixture("memory-snapshot-step.pickle"), problem);
    const auto back = profileFromJson(toJson(stored));
    ASSERT_TRUE(back && back->memory && back->memory->timeline);
    EXPECT_EQ(back->memory->kind, SnapshotKind::Step);
    EXPECT_EQ(back->memory->file, stored.memory->file);
    EXPECT_EQ(back->memory->timeline->points.size(), 10u);
    EXPECT_EQ(back->memory->timeline->peakAllocated, 18 * kMiB);
    EXPECT_EQ(back->memory->timeline->blocks[0].frames, stored.memory->timeline->blocks[0].frames);
    EXPECT_EQ(back->problem, stored.problem);

    // A run that failed out of memory stores its snapshot alone: no "holds no summary" for it.
    StoredProfile oom;
    oom.memory = StoredMemory{SnapshotKind::OutOfMemory, std::nullopt, "no memory timeline on the CPU", ""};
    const auto oomBack = profileFromJson(toJson(oom));
    ASSERT_TRUE(oomBack && oomBack->memory);
    EXPECT_EQ(oomBack->problem, "");
    EXPECT_EQ(oomBack->memory->kind, SnapshotKind::OutOfMemory);
    EXPECT_EQ(oomBack->memory->problem, "no memory timeline on the CPU");
}

} // namespace
} // namespace stepscope::profile
