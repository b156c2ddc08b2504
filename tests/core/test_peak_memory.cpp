// Peak memory in the ledger (issue 31): medians and spreads over processes, the ratio to the
// baseline, "-" and the reason where a row has no figure, every export's columns, and the
// recommendation's caveat for a row that ran out of memory.
#include "report/ledger.h"
#include "store/store.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <map>
#include <optional>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::report
{
namespace
{

constexpr std::int64_t kMiB = 1048576;

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> csvCells(const std::string &line)
{
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');)
        cells.push_back(cell);
    if (!line.empty() && line.back() == ',')
        cells.emplace_back();
    return cells;
}

// The CSV as header -> cell, one map per row (no field of these rows is quoted).
std::vector<std::map<std::string, std::string>> csvRows(const std::string &csv)
{
    std::stringstream in(csv);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = csvCells(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        const std::vector<std::string> cells = csvCells(line);
        EXPECT_EQ(cells.size(), header.size()) << line;
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
            row[header[i]] = cells[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

QJsonArray jsonRows(const Ledger &l)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(toJson(l))).object().value("rows").toArray();
}

RunConfig configOf(const std::string &device, bool tf32, bool cudaGraph)
{
    RunConfig c;
    c.device = device;
    c.tf32 = tf32;
    c.cudaGraph = cudaGraph;
    return c;
}

// A completed run at `levelMs` whose worker reported `allocatedMiB` / `reservedMiB` (none: no memory
// line, as a CPU worker), or one that ran out of memory.
struct MemoryRun {
    double levelMs = 10;
    std::optional<std::pair<std::int64_t, std::int64_t>> mib;
    bool outOfMemory = false;
};

void addMemoryRun(store::Database &db, std::int64_t sweepId, int position, const RunConfig &config,
                  const MemoryRun &spec)
{
    test::RunSpec run = test::runOf(config, position);
    if (spec.outOfMemory) {
        run.status = RunStatus::Failed;
        run.failure = Failure{FailureCategory::OutOfMemory, "out of memory at batch 32", ""};
    } else {
        run.firstS = 1.0;
        run.steps = test::stepsAt(spec.levelMs);
        if (spec.mib)
            run.memory = std::make_pair(spec.mib->first * kMiB, spec.mib->second * kMiB);
    }
    test::addRun(db, sweepId, run);
}

class PeakMemoryTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("m.db").toStdString();
    }

    Ledger ledgerOf(const std::vector<std::pair<RunConfig, MemoryRun>> &runs)
    {
        {
            auto db = store::Database::open(path_);
            const auto sweepId = test::addSweep(*db, {"memory", "ledger", 1000});
            int position = 0;
            for (const auto &[config, run] : runs)
                addMemoryRun(*db, sweepId, position++, config, run);
            db->flush();
        }
        auto reader = store::Reader::open(path_);
        const auto sweeps = reader->sweeps();
        return buildLedger(*reader, sweeps.front().id);
    }

    // The baseline and two rows of a CUDA ledger.
    const RunConfig base = configOf("cuda", false, false), tf32 = configOf("cuda", true, false),
                    graph = configOf("cuda", true, true);
    QTemporaryDir dir_;
    std::string path_;
};

// Three processes a row, interleaved: the figure is the median process's, not the last run's.
TEST_F(PeakMemoryTest, MedianAndSpreadOverProcessesAndTheRatioToTheBaseline)
{
    const Ledger l = ledgerOf({{base, {10, {{100, 200}}}},
                               {tf32, {8, {{60, 150}}}},
                               {graph, {0, {}, true}},
                               {base, {10, {{110, 210}}}},
                               {tf32, {8, {{70, 160}}}},
                               {base, {10, {{120, 230}}}},
                               {tf32, {8, {{80, 170}}}}});
    ASSERT_EQ(l.rows.size(), 3u);
    const LedgerRow &b = l.rows[0], &t = l.rows[1], &g = l.rows[2];
    ASSERT_TRUE(b.memory.allocated && b.memory.reserved);
    EXPECT_DOUBLE_EQ(b.memory.allocated->medianMiB, 110);
    EXPECT_DOUBLE_EQ(b.memory.allocated->minMiB, 100);
    EXPECT_DOUBLE_EQ(b.memory.allocated->maxMiB, 120);
    EXPECT_DOUBLE_EQ(b.memory.reserved->medianMiB, 210);
    EXPECT_DOUBLE_EQ(b.memory.reserved->maxMiB, 230);
    EXPECT_EQ(b.memory.processes, 3);
    EXPECT_FALSE(b.memoryRatio) << "the baseline is its own reference";
    ASSERT_TRUE(t.memory.allocated);
    EXPECT_DOUBLE_EQ(t.memory.allocated->medianMiB, 70) << "the median process, not the last run's 80";
    ASSERT_TRUE(t.memoryRatio);
    EXPECT_NEAR(*t.memoryRatio, 70.0 / 110.0, 1e-12);
    EXPECT_FALSE(g.memory.allocated);
    EXPECT_FALSE(g.memoryRatio);
    EXPECT_EQ(g.memory.outOfMemoryRuns, 1);

    // Every view's words come from the one function.
    EXPECT_EQ(memoryCellText(t.memory, t.memoryRatio), "70 MiB (0.64x)");
    EXPECT_EQ(memoryCellText(g.memory, g.memoryRatio), "-");
    const std::string detail = memoryDetailText(t.memory, t.memoryRatio);
    EXPECT_TRUE(contains(detail, "peak allocated 70 MiB (processes 60-80 MiB)")) << detail;
    EXPECT_TRUE(contains(detail, "reserved 160 MiB (processes 150-170 MiB), n=3")) << detail;
    EXPECT_TRUE(contains(detail, "0.64x the baseline's memory")) << detail;
    EXPECT_EQ(memoryDetailText(g.memory, g.memoryRatio), "peak memory not measured");

    // The Markdown ledger the CLI prints: a column, "-" where there is no figure.
    const std::string md = toMarkdown(l);
    EXPECT_TRUE(contains(md, " peak memory (x baseline) |")) << md;
    EXPECT_TRUE(contains(md, "| 110 MiB |")) << md;
    EXPECT_TRUE(contains(md, "| 70 MiB (0.64x) |")) << md;
    EXPECT_TRUE(contains(md, "| " + g.label + " | failed: out-of-memory |")) << md;
    const std::string failedLine = md.substr(md.find("| " + g.label + " | failed"));
    EXPECT_TRUE(contains(failedLine.substr(0, failedLine.find('\n')), "| - |")) << failedLine;
    EXPECT_TRUE(contains(md, peakMemoryNote(l))) << md;

    // CSV: the allocated figure with its spread, the reserved one, n and the ratio; empty, never 0.
    const auto csv = csvRows(toCsv(l));
    ASSERT_EQ(csv.size(), 3u);
    EXPECT_EQ(csv[0].at("peak_allocated_mib"), "110.0");
    EXPECT_EQ(csv[0].at("peak_allocated_min_mib"), "100.0");
    EXPECT_EQ(csv[0].at("peak_allocated_max_mib"), "120.0");
    EXPECT_EQ(csv[0].at("peak_reserved_mib"), "210.0");
    EXPECT_EQ(csv[0].at("peak_reserved_min_mib"), "200.0");
    EXPECT_EQ(csv[0].at("memory_processes"), "3");
    EXPECT_EQ(csv[0].at("memory_ratio"), "");
    EXPECT_EQ(csv[1].at("memory_ratio"), "0.6364");
    EXPECT_EQ(csv[1].at("peak_reserved_max_mib"), "170.0");
    EXPECT_EQ(csv[2].at("peak_allocated_mib"), "");
    EXPECT_EQ(csv[2].at("peak_reserved_mib"), "");
    EXPECT_EQ(csv[2].at("memory_processes"), "0");

    // JSON: the same fields, null without a figure.
    const QJsonArray rows = jsonRows(l);
    ASSERT_EQ(rows.size(), 3);
    EXPECT_DOUBLE_EQ(rows[1].toObject().value("peak_allocated_mib").toDouble(), 70);
    EXPECT_DOUBLE_EQ(rows[1].toObject().value("peak_reserved_min_mib").toDouble(), 150);
    EXPECT_NEAR(rows[1].toObject().value("memory_ratio").toDouble(), 70.0 / 110.0, 1e-12);
    EXPECT_EQ(rows[1].toObject().value("memory_processes").toInt(), 3);
    EXPECT_TRUE(rows[0].toObject().value("memory_ratio").isNull());
    EXPECT_TRUE(rows[2].toObject().value("peak_allocated_mib").isNull());
    EXPECT_TRUE(rows[2].toObject().value("peak_reserved_max_mib").isNull());
    EXPECT_EQ(rows[2].toObject().value("memory").toString().toStdString(), "peak memory not measured");
}

// A row that ran out of memory where the recommended one completed: the caveat names both, with
// the recommended row's peak.
TEST_F(PeakMemoryTest, AnOutOfMemoryRowIsNamedWithWhatFitsTheBatch)
{
    const Ledger l = ledgerOf({{base, {10, {{100, 200}}}},
                               {tf32, {5, {{90, 150}}}},
                               {graph, {0, {}, true}},
                               {base, {10, {{100, 200}}}},
                               {tf32, {5, {{90, 150}}}},
                               {graph, {0, {}, true}}});
    ASSERT_EQ(l.rows.size(), 3u);
    ASSERT_TRUE(l.recommended);
    ASSERT_EQ(*l.recommended, 1u) << "the faster row that completed";
    const std::string caveats = recommendationCaveats(l);
    EXPECT_TRUE(contains(caveats, l.rows[2].label + " ran out of memory at batch 32; " + l.rows[1].label +
                                      " fits it (peak 90 MiB)."))
        << caveats;
}

// Some runs of a row ran out of memory, others completed: the caveat says how many, and a sweep
// without such a row says nothing of memory.
TEST_F(PeakMemoryTest, APartlyOutOfMemoryRowSaysHowManyRunsAndOthersSayNothing)
{
    const Ledger l = ledgerOf({{base, {10, {{100, 200}}}},
                               {tf32, {5, {{90, 150}}}},
                               {graph, {9, {{130, 250}}}},
                               {base, {10, {{100, 200}}}},
                               {tf32, {5, {{90, 150}}}},
                               {graph, {0, {}, true}}});
    ASSERT_EQ(*l.recommended, 1u);
    const std::string caveats = recommendationCaveats(l);
    EXPECT_TRUE(contains(caveats, l.rows[2].label + " (1 of 2 runs) ran out of memory at batch 32; ")) << caveats;

    QTemporaryDir other;
    path_ = other.filePath("n.db").toStdString();
    const Ledger fine = ledgerOf({{base, {10, {{100, 200}}}}, {tf32, {5, {{90, 150}}}}});
    EXPECT_FALSE(contains(recommendationCaveats(fine), "memory")) << recommendationCaveats(fine);
}

// A CPU worker sends no memory line, and a worker that reports 0 measured nothing: no figure, the
// reason in words, no column of dashes in the Markdown, empty CSV cells.
TEST_F(PeakMemoryTest, ACpuSweepHasNoFiguresAndSaysWhy)
{
    const RunConfig cpu = configOf("cpu", false, false);
    RunConfig threads = cpu;
    threads.threads = 1;
    const Ledger l = ledgerOf({{cpu, {10, {}}}, {threads, {9, {{0, 0}}}}});
    ASSERT_EQ(l.rows.size(), 2u);
    for (const LedgerRow &row : l.rows) {
        EXPECT_FALSE(row.memory.allocated) << row.label;
        EXPECT_FALSE(row.memoryRatio) << row.label;
        EXPECT_EQ(memoryCellText(row.memory, row.memoryRatio), "-");
        EXPECT_EQ(memoryDetailText(row.memory, row.memoryRatio),
                  "peak memory not measured: no GPU memory figures on the CPU");
    }
    const std::string md = toMarkdown(l);
    EXPECT_FALSE(contains(md, "peak memory (x baseline)")) << md;
    EXPECT_TRUE(contains(md, "Peak memory not measured: no GPU memory figures on the CPU.")) << md;
    const auto csv = csvRows(toCsv(l));
    ASSERT_EQ(csv.size(), 2u);
    EXPECT_EQ(csv[1].at("peak_allocated_mib"), "") << "a reported 0 is no figure";
    EXPECT_EQ(csv[1].at("memory_processes"), "0");
}

} // namespace
} // namespace stepscope::report
