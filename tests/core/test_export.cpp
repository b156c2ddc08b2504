// The text exports of a ledger (core/report/export.cpp) and the number text they use
// (number_text.cpp, ledger_text.cpp's formatters), on ledgers built by hand: CSV that a spreadsheet
// splits into the header's columns whatever the names hold, JSON that parses with null for what is
// missing or not finite, and Markdown with one table row per configuration. That numbers keep a
// decimal point under a decimal-comma locale is cli_locale.sh's test: it compiles such a locale.
#include "report/ledger.h"
#include "report/number_text.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <climits>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace stepscope::report
{
namespace
{

// RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines.
std::vector<std::vector<std::string>> parseCsv(const std::string &text)
{
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += text[++i];
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            records.back().push_back(field);
            field.clear();
        } else if (c == '\n') {
            records.back().push_back(field);
            field.clear();
            records.emplace_back();
        } else {
            field += c;
        }
    }
    if (records.back().empty())
        records.pop_back();
    return records;
}

std::size_t column(const std::vector<std::string> &header, const std::string &name)
{
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
}

// Two rows: a complete baseline with an interval, and a candidate whose names hold every character
// CSV and JSON must escape, with a steady figure that is not finite and no interval.
Ledger handMadeLedger()
{
    Ledger l;
    l.sweep.id = 7;
    l.sweep.name = "nightly";
    l.sweep.preset = "ledger";
    l.sweep.created = "2026-12-01T10:00:00Z";
    l.sweep.status = store::SweepStatus::Complete;

    LedgerRow base;
    base.configName = "native cuda b32 224px c1000 baseline";
    base.label = "baseline";
    base.repeats = base.completed = base.processes = 3;
    base.firstStepMs = 1875.4;
    base.steadyMs = 14.2149;
    base.steadyMinMs = 14.1;
    base.steadyMaxMs = 14.9;
    base.timing = store::Timing::Gpu;
    base.accuracy.verdict = LedgerRow::Accuracy::Verdict::Ok;

    LedgerRow odd;
    odd.configName = "custom, \"quoted\"\nname";
    odd.label = "tf32+bf16";
    odd.lastStatus = RunStatus::Failed;
    odd.failureCategory = "out-of-memory";
    odd.failureMessage = "out of memory at batch 512, image 224";
    odd.repeats = 3;
    odd.completed = odd.processes = 2;
    odd.steadyMs = std::numeric_limits<double>::quiet_NaN();
    odd.speedup = 1.25;
    stats::RatioCI ratio;
    ratio.ratio = 0.8;
    ratio.low = 0.7;
    ratio.high = 0.9;
    ratio.significant = true;
    ratio.hasInterval = true;
    odd.timeRatio = ratio;
    odd.breakEvenSteps = 110;
    odd.accuracy.verdict = LedgerRow::Accuracy::Verdict::Diverged;
    odd.accuracy.stalled = true;
    odd.accuracy.firstLoss = 6.9;
    odd.accuracy.lastLoss = 7.25;
    odd.accuracy.baselineLastLoss = 1.9;
    l.rows = {base, odd};
    return l;
}

} // namespace

TEST(ExportCsv, EveryRecordHasTheHeadersColumnsWhateverTheNamesHold)
{
    const auto records = parseCsv(toCsv(handMadeLedger()));
    ASSERT_EQ(records.size(), 3u) << "header + one record per configuration";
    const auto &header = records[0];
    for (std::size_t r = 1; r < records.size(); ++r)
        EXPECT_EQ(records[r].size(), header.size()) << "record " << r;
    const auto &odd = records[2];
    EXPECT_EQ(odd[column(header, "configuration")], "custom, \"quoted\"\nname");
    EXPECT_EQ(odd[column(header, "status")], "2/3 complete");
    EXPECT_EQ(odd[column(header, "failure_category")], "out-of-memory");
    EXPECT_EQ(odd[column(header, "accuracy")],
              "diverged (loss rose from 6.9 to 7.25 while the baseline's fell to 1.9)");
    // A steady figure that is not finite is an empty field, never "nan".
    EXPECT_EQ(odd[column(header, "steady_ms")], "");
    // The speed-up's interval is the time ratio's, inverted: [1/0.9, 1/0.7].
    EXPECT_EQ(odd[column(header, "speedup")], "1.2500");
    EXPECT_EQ(odd[column(header, "speedup_ci_low")], "1.1111");
    EXPECT_EQ(odd[column(header, "speedup_ci_high")], "1.4286");
    EXPECT_EQ(odd[column(header, "significant")], "yes");
    EXPECT_EQ(records[1][column(header, "baseline")], "yes");
    EXPECT_EQ(odd[column(header, "baseline")], "");
    EXPECT_EQ(records[1][column(header, "steady_ms")], "14.2149");
    EXPECT_EQ(records[1][column(header, "first_step_s")], "1.8754");
}

TEST(ExportJson, ParsesWithNullForMissingAndNonFiniteFigures)
{
    const std::string text = toJson(handMadeLedger());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString() << "\n" << text;
    const QJsonObject root = doc.object();
    EXPECT_EQ(root.value("sweep").toObject().value("id").toInt(), 7);
    EXPECT_EQ(root.value("baseline").toString(), "native cuda b32 224px c1000 baseline");
    const QJsonArray rows = root.value("rows").toArray();
    ASSERT_EQ(rows.size(), 2);
    const QJsonObject base = rows[0].toObject(), odd = rows[1].toObject();
    EXPECT_DOUBLE_EQ(base.value("steady_ms").toDouble(), 14.2149) << "numbers stay numbers, at full precision";
    EXPECT_TRUE(base.value("speedup").isNull()) << "the baseline has no speed-up of its own";
    EXPECT_TRUE(base.value("speedup_ci").isNull());
    EXPECT_EQ(odd.value("configuration").toString().toStdString(), "custom, \"quoted\"\nname");
    EXPECT_TRUE(odd.value("steady_ms").isNull()) << "NaN is not JSON: null";
    EXPECT_TRUE(odd.value("first_step_s").isNull());
    const QJsonArray ci = odd.value("speedup_ci").toArray();
    ASSERT_EQ(ci.size(), 2);
    EXPECT_NEAR(ci[0].toDouble(), 1 / 0.9, 1e-12);
    EXPECT_NEAR(ci[1].toDouble(), 1 / 0.7, 1e-12);
    EXPECT_TRUE(odd.value("significant").toBool());
    EXPECT_EQ(odd.value("break_even_steps").toDouble(), 110);
}

TEST(ExportMarkdown, OneTableRowPerConfigurationWithItsFigures)
{
    const std::string md = toMarkdown(handMadeLedger());
    std::istringstream lines(md);
    std::vector<std::string> table;
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("| ", 0) == 0)
            table.push_back(line);
    ASSERT_EQ(table.size(), 3u) << "header + one row per configuration:\n" << md;
    EXPECT_EQ(md.rfind("## Sweep 7: nightly (ledger, 2026-12-01T10:00:00Z)", 0), 0u) << md;
    EXPECT_NE(md.find("Baseline: baseline"), std::string::npos);
    EXPECT_NE(table[1].find("| baseline | complete | 1.88 s | 14.21 ms | 14.10-14.90 (n=3) |"), std::string::npos)
        << table[1];
    EXPECT_NE(table[2].find("| tf32+bf16 | 2/3 complete: out-of-memory |"), std::string::npos) << table[2];
    EXPECT_NE(table[2].find("| 1.25x [1.11-1.43] |"), std::string::npos) << table[2];
    EXPECT_EQ(table[2].find("|  ms |"), std::string::npos)
        << "a steady figure that is not finite reads '-', not ' ms': " << table[2];
    EXPECT_NE(md.find("CUDA-event time"), std::string::npos) << "the baseline's timing names the clock";
}

TEST(NumberText, GroupsThousandsWithCommas)
{
    EXPECT_EQ(groupThousands(0), "0");
    EXPECT_EQ(groupThousands(999), "999");
    EXPECT_EQ(groupThousands(1000), "1,000");
    EXPECT_EQ(groupThousands(1234567), "1,234,567");
    EXPECT_EQ(groupThousands(-1234), "-1,234");
    EXPECT_EQ(groupThousands(LLONG_MIN), "-9,223,372,036,854,775,808");
}

TEST(NumberText, DurationsAndBreakEvenRangesReadAsTheDashboardShowsThem)
{
    EXPECT_EQ(formatSeconds(0.4123), "412 ms");
    EXPECT_EQ(formatSeconds(43.8), "43.80 s");
    EXPECT_EQ(formatSeconds(225), "3 min 45 s");
    EXPECT_EQ(formatSeconds(std::nan("")), "-");
    EXPECT_EQ(formatMs(7.156), "7.16 ms");
    EXPECT_EQ(formatMs(INFINITY), "-");

    stats::BreakEvenCI ci;
    EXPECT_EQ(breakEvenRangeText(ci), "n=1, no CI");
    ci.hasInterval = true;
    ci.low = 80;
    ci.high = 150;
    EXPECT_EQ(breakEvenRangeText(ci), "80-150");
    ci.low = 0.5;
    EXPECT_EQ(breakEvenRangeText(ci), "immediately to 150");
    ci.high = 1;
    EXPECT_EQ(breakEvenRangeText(ci), "immediately");
    ci.low = 80;
    ci.highNever = true;
    EXPECT_EQ(breakEvenRangeText(ci), "80 to never");
    ci.lowNever = true;
    EXPECT_EQ(breakEvenRangeText(ci), "never");
}

} // namespace stepscope::report
