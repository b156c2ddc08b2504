// How long the ledger of a large sweep takes to compute, off any window: the 7-configuration x
// 3-repeat synthetic sweep of bench/synthetic_sweep.cpp (100,000 steps a run by default: 2.1 million
// step rows) is written once into a database, then buildLedger reads and computes it, and
// recommendFor recomputes the recommendation for another planned run length (what the dashboard's
// planned-steps box asks). Prints the times and each row's figures; asserts nothing.
// Options: --steps N (rows a run, step 1 included), --repeats N, --db FILE (kept: written there when
// missing, else its sweep 1, which this bench wrote before, is read again), --rounds N (ledgers to time).
#include "report/ledger.h"
#include "report/run_summary.h"
#include "synthetic_sweep.h"

#include <QFile>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace
{

using namespace stepscope;

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string interval(const std::optional<stats::RatioCI> &ci)
{
    if (!ci || !ci->hasInterval)
        return "-";
    char text[64];
    std::snprintf(text, sizeof text, "%.3f-%.3f", 1 / ci->high, 1 / ci->low);
    return text;
}

} // namespace

int main(int argc, char **argv)
{
    bench::SyntheticSweep spec;
    std::string dbPath;
    int rounds = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i], value = argv[i + 1];
        if (option == "--steps")
            spec.stepsPerRun = std::atoi(value.c_str());
        else if (option == "--repeats")
            spec.repeats = std::atoi(value.c_str());
        else if (option == "--db")
            dbPath = value;
        else if (option == "--rounds")
            rounds = std::atoi(value.c_str());
        else {
            std::fprintf(stderr, "unknown option %s\n", option.c_str());
            return 2;
        }
    }

    QTemporaryDir dir;
    std::int64_t sweepId = 1;
    if (dbPath.empty())
        dbPath = dir.filePath("ledger-bench.sqlite").toStdString();
    if (!QFile::exists(QString::fromStdString(dbPath))) {
        const auto start = std::chrono::steady_clock::now();
        auto db = store::Database::open(dbPath);
        sweepId = bench::writeSyntheticSweep(*db, spec);
        std::printf("wrote 7 configurations x %d processes x %d steps in %.1f s\n", spec.repeats, spec.stepsPerRun,
                    secondsSince(start));
    }

    const auto reader = store::Reader::open(dbPath);
    for (int round = 0; round < rounds; ++round) {
        // What no method can avoid: reading every run's steps and finding its steady samples.
        auto start = std::chrono::steady_clock::now();
        std::size_t steps = 0;
        for (const auto &run : reader->runs(sweepId))
            steps += report::readRun(*reader, run).steady.size();
        std::printf("reading the steps alone (%zu steady): %.2f s\n", steps, secondsSince(start));
        start = std::chrono::steady_clock::now();
        report::Ledger ledger = report::buildLedger(*reader, sweepId);
        const double buildS = secondsSince(start);
        start = std::chrono::steady_clock::now();
        report::recommendFor(ledger, 25000);
        const double recommendS = secondsSince(start);
        std::printf("ledger (reading %zu rows' steps and every interval): %.2f s; recommendation for another N: "
                    "%.3f s\n",
                    ledger.rows.size(), buildS, recommendS);
        if (round + 1 < rounds)
            continue;
        for (const auto &row : ledger.rows)
            std::printf("  %-28s steady %7.3f ms [%7.3f-%7.3f] n=%d  speed-up %s [%s]  break-even %s [%s]\n",
                        row.label.c_str(), row.steadyMs.value_or(0), row.steadyCI ? row.steadyCI->low : 0,
                        row.steadyCI ? row.steadyCI->high : 0, row.processes,
                        row.speedup ? std::to_string(*row.speedup).c_str() : "-", interval(row.timeRatio).c_str(),
                        report::breakEvenText(row).c_str(), row.breakEvenRange.c_str());
        std::printf("  %s\n", ledger.recommendationText.c_str());
    }
    return 0;
}
