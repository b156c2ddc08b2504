// Replays recorded sweeps through the time-left model (supervisor/time_left_replay.h) and prints, at
// each run start, what it would have said against what the rest took, with the error from the third
// run on (issue 28.4's goal: within 25%). Also writes the reference costs Stepscope ships.
//
//   time_left_replay SWEEP.sqlite [--sweep ID] [--at RUN] [--reference builtin|none|A.sqlite,B.sqlite,...]
//   time_left_replay --write-reference OUT.cpp --source "TEXT" A.sqlite [B.sqlite ...]
//
// --reference none replays with the sweep's own runs only (what a first sweep knew before issue
// 28.4); with databases, the costs measured there (keep the replayed sweep out of them: a reference
// that holds the sweep it predicts says nothing).
#include "store/store.h"
#include "supervisor/run_costs.h"
#include "supervisor/time_left_replay.h"

#include <QCoreApplication>
#include <QStringList>

#include <cstdio>
#include <fstream>
#include <iostream>

using namespace stepscope;
using namespace stepscope::supervisor;

namespace
{

int usage()
{
    std::cerr << "usage: time_left_replay SWEEP.sqlite [--sweep ID] [--at RUN] [--reference builtin|none|A.sqlite,...]\n"
                 "       time_left_replay --write-reference OUT.cpp --source TEXT A.sqlite [B.sqlite ...]\n";
    return 2;
}

RunCosts costsOf(const QStringList &paths)
{
    RunCosts all;
    for (const QString &path : paths) {
        const auto reader = store::Reader::open(path.toStdString());
        const RunCosts costs = runCostsOf(*reader);
        all.insert(costs.begin(), costs.end()); // the first database named wins a key
    }
    return all;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    try {
        if (const int w = static_cast<int>(args.indexOf("--write-reference")); w >= 0) {
            const int s = static_cast<int>(args.indexOf("--source"));
            if (w + 1 >= args.size() || s < 0 || s + 1 >= args.size())
                return usage();
            const QString out = args[w + 1], source = args[s + 1];
            QStringList dbs;
            for (int i = 0; i < args.size(); ++i)
                if (i != w && i != w + 1 && i != s && i != s + 1)
                    dbs << args[i];
            if (dbs.isEmpty())
                return usage();
            const RunCosts costs = costsOf(dbs);
            std::ofstream(out.toStdString()) << runCostsAsCpp(costs, source.toStdString());
            std::cout << costs.size() << " reference costs written to " << out.toStdString() << "\n";
            return 0;
        }
        QString db, reference = "builtin";
        std::int64_t sweepId = -1;
        std::size_t at = 0; // --at N: each run's prediction at run N's start
        for (int i = 0; i < args.size(); ++i) {
            if (args[i] == "--sweep" && i + 1 < args.size())
                sweepId = args[++i].toLongLong();
            else if (args[i] == "--at" && i + 1 < args.size())
                at = args[++i].toULong();
            else if (args[i] == "--reference" && i + 1 < args.size())
                reference = args[++i];
            else if (db.isEmpty() && !args[i].startsWith("--"))
                db = args[i];
            else
                return usage();
        }
        if (db.isEmpty())
            return usage();
        const auto reader = store::Reader::open(db.toStdString());
        if (sweepId < 0) {
            const auto sweeps = reader->sweeps();
            if (sweeps.empty()) {
                std::cerr << db.toStdString() << " holds no sweep\n";
                return 1;
            }
            sweepId = sweeps.front().id; // the newest
        }
        TimeLeft model;
        if (reference == "builtin")
            model.addReference(referenceRunCosts());
        else if (reference != "none")
            model.addReference(costsOf(reference.split(',')));
        const auto points = replayTimeLeft(*reader, sweepId, model);
        std::printf("sweep %lld of %s, reference: %s\n", static_cast<long long>(sweepId), db.toUtf8().constData(),
                    reference == "builtin" ? referenceRunCostsSource() : reference.toUtf8().constData());
        std::printf("%4s %10s %10s %7s %s\n", "run", "predicted", "actual", "error", "");
        for (const ReplayPoint &p : points)
            std::printf("%4zu %9.0fs %9.0fs %6.0f%% %s\n", p.run + 1, p.predicted, p.actual,
                        p.actual > 0 ? 100 * (p.predicted - p.actual) / p.actual : 0.0, p.guess ? "guess" : "");
        for (const ReplayPoint &p : points) {
            if (p.run + 1 != at)
                continue;
            std::printf("at run %zu's start, each run's prediction:\n", at);
            for (std::size_t j = 0; j < p.each.size(); ++j)
                std::printf("  run %zu: %.1f s predicted, %.1f s taken\n", p.run + 1 + j, p.each[j].first,
                            p.each[j].second);
        }
        for (const std::size_t from : {std::size_t(0), std::size_t(2)})
            if (const auto e = replayError(points, from))
                std::printf("from run %zu on: median error %.0f%%, worst %.0f%% over %d run starts\n", from + 1,
                            e->median * 100, e->worst * 100, e->points);
        return 0;
    } catch (const store::StoreError &e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
}
