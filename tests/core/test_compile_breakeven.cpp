// Compile break-even against eager (core/report/compile_breakeven.h): each compiled row, cold and
// warm, against the same knobs run eager in the same runtime, with its process-level interval, and
// the exports that carry it.
#include "report/compile_breakeven.h"
#include "report/ledger.h"
#include "report/number_text.h"
#include "report/sweep_export.h"
#include "stats/stats.h"
#include "stored_sweep.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>
#include <string>

namespace stepscope::report
{
namespace
{

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

RunConfig python(CompileMode mode = CompileMode::None)
{
    RunConfig c;
    c.runtime = Runtime::Python;
    c.compile = mode;
    return c;
}

test::StoredRun startingAs(test::StoredRun run, store::StartState start)
{
    run.start = start;
    return run;
}

// Native baseline (0.5 s, 10 ms), Python eager (0.6 s, 10.5 ms), compile default: one configuration
// that ran fresh (30 s, 8 ms) and again (3 s, 8 ms), three processes each; a max-autotune row with channels-last that has no
// eager twin, and one process of a fused-SGD compile whose eager twin ran once too.
class CompileBreakEvenTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir_.isValid());
        path_ = dir_.filePath("c.db").toStdString();
        auto db = store::Database::open(path_);
        sweepId_ = test::addSweep(*db, {"compile"});
        int position = 0;
        test::addRepeats(*db, sweepId_, position, test::cpuRun(RunConfig{}, 0.5, 10.0), 3);
        test::addRepeats(*db, sweepId_, position, test::cpuRun(python(), 0.6, 10.5), 3);
        test::addRepeats(*db, sweepId_, position,
                         startingAs(test::cpuRun(python(CompileMode::Default), 30.0, 8.0), store::StartState::Fresh), 3);
        test::addRepeats(*db, sweepId_, position,
                         startingAs(test::cpuRun(python(CompileMode::Default), 3.0, 8.0), store::StartState::Again), 3);
        RunConfig lonely = python(CompileMode::MaxAutotuneNoCudagraphs);
        lonely.channelsLast = true;
        test::addRepeats(*db, sweepId_, position, test::cpuRun(lonely, 40.0, 7.0), 2);
        RunConfig fused = python();
        fused.optimizer = Optimizer::Fused;
        test::addStoredRun(*db, sweepId_, position++, test::cpuRun(fused, 0.6, 10.0));
        RunConfig fusedCompiled = fused;
        fusedCompiled.compile = CompileMode::Default;
        test::addStoredRun(*db, sweepId_, position++, test::cpuRun(fusedCompiled, 20.0, 6.0));
        db->flush();
    }

    QTemporaryDir dir_;
    std::string path_;
    std::int64_t sweepId_ = 0;
};

TEST_F(CompileBreakEvenTest, FreshAndAgainAgainstTheirEagerRowWithAnInterval)
{
    const auto reader = store::Reader::open(path_);
    const Ledger ledger = buildLedger(*reader, sweepId_);
    // The fresh and again runs of the compiled configuration are one row, with a first step each.
    ASSERT_EQ(ledger.rows.size(), 6u);
    const auto breakEvens = compileBreakEvens(ledger);
    ASSERT_EQ(breakEvens.size(), 3u); // the compiled rows, in the ledger's order
    const auto &cold = breakEvens[0], &lonely = breakEvens[1], &single = breakEvens[2];
    const Ledger againLedger = buildLedger(*reader, sweepId_, 0, {}, store::StartState::Again);
    const auto againBreakEvens = compileBreakEvens(againLedger);
    ASSERT_EQ(againBreakEvens.size(), 3u);
    const auto &warm = againBreakEvens[0];
    const std::size_t eagerRow = 1;
    EXPECT_EQ(ledger.rows[eagerRow].label, "python baseline");
    EXPECT_EQ(cold.row, warm.row);

    EXPECT_EQ(cold.start, store::StartState::Fresh);
    EXPECT_EQ(warm.start, store::StartState::Again);
    ASSERT_TRUE(cold.eagerRow && warm.eagerRow);
    EXPECT_EQ(*cold.eagerRow, eagerRow);
    EXPECT_EQ(*warm.eagerRow, eagerRow); // the warm row's eager twin is the cold one's
    for (const auto *b : {&cold, &warm}) {
        const Ledger &l = b == &cold ? ledger : againLedger;
        const LedgerRow &row = l.rows[b->row], &e = l.rows[eagerRow];
        ASSERT_TRUE(b->measured);
        // The point figure is the ledger's rule against another row: 1 + (T1_C - T1_E) / (t_E - t_C).
        const auto expected = stats::breakEvenSteps(*row.firstStepMs, *row.steadyMs, *e.firstStepMs, *e.steadyMs);
        ASSERT_TRUE(b->steps && expected);
        EXPECT_DOUBLE_EQ(*b->steps, *expected);
        // Three processes a side: an interval around it.
        EXPECT_TRUE(b->ci.hasInterval);
        EXPECT_FALSE(b->ci.lowNever);
        EXPECT_LE(b->ci.low, *b->steps);
        EXPECT_GE(b->ci.high, *b->steps);
    }
    // About 1 + 29.4 / 0.0025 and 1 + 2.4 / 0.0025.
    EXPECT_NEAR(*cold.steps, 11761, 150);
    EXPECT_NEAR(*warm.steps, 961, 20);
    EXPECT_LT(*warm.steps, *cold.steps);
    const std::string coldText = compileBreakEvenText(cold);
    EXPECT_EQ(coldText.rfind(groupThousands(std::llround(*cold.steps)) + " [", 0), 0u) << coldText;

    // No eager row with channels-last: nothing to compare with.
    EXPECT_FALSE(lonely.eagerRow);
    EXPECT_FALSE(lonely.measured);
    EXPECT_EQ(compileBreakEvenText(lonely), "-");
    // One process a side: the figure without an interval, said so.
    ASSERT_TRUE(single.measured && single.steps);
    EXPECT_FALSE(single.ci.hasInterval);
    EXPECT_NE(compileBreakEvenText(single).find("(n=1, no CI)"), std::string::npos) << compileBreakEvenText(single);
}

TEST_F(CompileBreakEvenTest, TheExportsCarryIt)
{
    const auto reader = store::Reader::open(path_);
    const Ledger ledger = buildLedger(*reader, sweepId_);
    const SweepFigures figures = sweepFigures(*reader, ledger);
    ASSERT_EQ(figures.compile.size(), 3u);

    const std::string md = toMarkdown(ledger, figures);
    EXPECT_TRUE(contains(md, "### torch.compile: break-even against eager")) << md;
    EXPECT_TRUE(contains(md, "| python compile-default | fresh | 30.00 s | ")) << md;
    EXPECT_TRUE(contains(md, compileBreakEvenText(figures.compile[0]))) << md;
    EXPECT_TRUE(contains(md, "none in this sweep")) << md;

    QJsonParseError error;
    const QJsonObject root =
        QJsonDocument::fromJson(QByteArray::fromStdString(toJson(ledger, figures)), &error).object();
    ASSERT_EQ(error.error, QJsonParseError::NoError);
    const QJsonArray rows = root["compile_break_even"].toArray();
    ASSERT_EQ(rows.size(), 3);
    const QJsonObject cold = rows[0].toObject();
    EXPECT_EQ(cold["configuration"].toString().toStdString(), ledger.rows[figures.compile[0].row].configName);
    EXPECT_EQ(cold["eager"].toString().toStdString(), ledger.rows[1].configName);
    EXPECT_EQ(cold["start"].toString(), "fresh");
    EXPECT_DOUBLE_EQ(cold["steps"].toDouble(), *figures.compile[0].steps);
    EXPECT_DOUBLE_EQ(cold["ci_low"].toDouble(), figures.compile[0].ci.low);
    EXPECT_FALSE(cold["never"].toBool());
    EXPECT_TRUE(rows[1].toObject()["eager"].isNull());
    EXPECT_TRUE(rows[2].toObject()["ci_low"].isNull()); // one process: no interval
}

} // namespace
} // namespace stepscope::report
