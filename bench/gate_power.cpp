// How often the regression gate (report/regression_gate.h) cries wolf and how often it catches a
// slowdown, simulated on stored processes (issue 29.3): for each configuration of a database with
// enough cold processes, two sweeps of n processes each are drawn from the same pool (an A/A pair:
// any alarm is false) and again with a slowdown planted in B's steps. Prints the alarm rates.
//
//   gate_power DB.sqlite [--trials N] [--max-slowdown PCT] [--planted PCT]
#include "report/regression_gate.h"
#include "stats/stats.h"
#include "store/store.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>

using namespace stepscope;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QString db;
    int trials = 200;
    double maxSlowdown = 0.05, planted = 0.10;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--trials" && i + 1 < args.size())
            trials = args[++i].toInt();
        else if (args[i] == "--max-slowdown" && i + 1 < args.size())
            maxSlowdown = args[++i].toDouble() / 100;
        else if (args[i] == "--planted" && i + 1 < args.size())
            planted = args[++i].toDouble() / 100;
        else if (db.isEmpty())
            db = args[i];
    }
    if (db.isEmpty() || trials < 1) {
        std::cerr << "usage: gate_power DB.sqlite [--trials N] [--max-slowdown PCT] [--planted PCT]\n";
        return 2;
    }
    try {
        const auto reader = store::Reader::open(db.toStdString());
        // Each configuration's processes: the steps of its steady window, in the summary's timing.
        std::map<std::string, stats::Runs> pools;
        for (const store::SweepRecord &sweep : reader->sweeps())
            for (const store::RunRecord &run : reader->runs(sweep.id)) {
                const auto summary = reader->summary(run.id);
                if (run.status != RunStatus::Complete || !summary || summary->steadyCount < 2)
                    continue;
                std::vector<double> steps;
                for (const store::StepRow &s : reader->steps(run.id))
                    if (s.index >= summary->steadyBegin && s.index < summary->steadyBegin + summary->steadyCount)
                        steps.push_back(summary->timing == store::Timing::Gpu && s.gpuMs ? *s.gpuMs : s.wallMs);
                pools[run.configName].push_back(std::move(steps));
            }
        std::printf("%s: %d trials a cell, gate at +%.0f%%, planted slowdown +%.0f%%\n", db.toUtf8().constData(),
                    trials, maxSlowdown * 100, planted * 100);
        std::printf("%-70s %4s %4s %12s %12s\n", "configuration", "pool", "n", "A/A alarms", "caught");
        std::mt19937_64 rng(2029);
        for (const auto &[name, pool] : pools) {
            if (pool.size() < 4)
                continue;
            for (const int n : {2, 3, 5}) {
                // Without replacement while the pool holds two disjoint sweeps, else with.
                const bool disjoint = pool.size() >= static_cast<std::size_t>(2 * n);
                int falseAlarms = 0, caught = 0;
                for (int t = 0; t < trials; ++t) {
                    std::vector<std::size_t> order(pool.size());
                    for (std::size_t i = 0; i < order.size(); ++i)
                        order[i] = i;
                    std::shuffle(order.begin(), order.end(), rng);
                    stats::Runs a, b, slow;
                    std::uniform_int_distribution<std::size_t> any(0, pool.size() - 1);
                    for (int k = 0; k < n; ++k) {
                        a.push_back(pool[disjoint ? order[k] : any(rng)]);
                        b.push_back(pool[disjoint ? order[n + k] : any(rng)]);
                    }
                    for (std::vector<double> steps : b) {
                        for (double &s : steps)
                            s *= 1 + planted;
                        slow.push_back(std::move(steps));
                    }
                    const auto seed = static_cast<std::uint64_t>(t) + 1;
                    falseAlarms += report::steadyVerdict(stats::ratioOfMedians(b, a, 500, seed), maxSlowdown) ==
                                   report::GateVerdict::Regressed;
                    caught += report::steadyVerdict(stats::ratioOfMedians(slow, a, 500, seed), maxSlowdown) ==
                              report::GateVerdict::Regressed;
                }
                std::printf("%-70s %4zu %4d %11.1f%% %11.1f%%%s\n", name.c_str(), pool.size(), n,
                            100.0 * falseAlarms / trials, 100.0 * caught / trials, disjoint ? "" : " (drawn with replacement)");
            }
        }
        return 0;
    } catch (const store::StoreError &e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
}
