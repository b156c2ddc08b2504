// A sweep over several devices (issue 21): the lanes the --devices text names, and the runner's
// lanes on "devices" that are CPU slots running the fake worker. What must hold: no two timed runs
// on one lane at once, the lanes do run at once, repeats keep to one GPU model, a lane whose device
// has gone does not stop the others, and a data-parallel run holds as many lanes as it has ranks.
#include "supervisor_fixture.h"

#include "supervisor/sweep_lanes.h"
#include "supervisor/sweep_request.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <map>

namespace stepscope::supervisor::test
{
namespace
{

std::vector<FoundGpu> twoH200AndAnA100()
{
    return {{0, "NVIDIA H200", "GPU-aaaa", "00000000:19:00.0", 143771},
            {1, "NVIDIA H200", "GPU-bbbb", "00000000:3B:00.0", 143771},
            {2, "NVIDIA A100-SXM4-80GB", "GPU-cccc", "00000000:4C:00.0", 81920}};
}

LaneDevice fakeGpu(const QString &label, const QString &model, int index)
{
    // The fake worker runs on the CPU whatever the lane: the lane's device is what the runner tells it.
    return LaneDevice{"cpu", label, model, "GPU-" + label, index};
}

// Per lane, the [start, end] wall-clock intervals of its processes, from the fake worker's stamps.
std::map<QString, std::vector<std::pair<qint64, qint64>>> intervals(const QString &starts, const QString &ends)
{
    std::map<QString, std::vector<qint64>> s, e;
    for (const QString &line : linesOf(starts))
        s[line.section('\t', 1)].push_back(line.section('\t', 0, 0).toLongLong());
    for (const QString &line : linesOf(ends))
        e[line.section('\t', 1)].push_back(line.section('\t', 0, 0).toLongLong());
    std::map<QString, std::vector<std::pair<qint64, qint64>>> out;
    for (auto &[lane, begins] : s) {
        auto &finishes = e[lane];
        std::sort(begins.begin(), begins.end());
        std::sort(finishes.begin(), finishes.end());
        EXPECT_EQ(begins.size(), finishes.size()) << lane.toStdString();
        for (std::size_t i = 0; i < std::min(begins.size(), finishes.size()); ++i)
            out[lane].emplace_back(begins[i], finishes[i]);
    }
    return out;
}

QJsonObject laneOf(const store::RunRecord &run)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(run.laneJson)).object();
}

} // namespace

TEST(SweepLanes, DevicesTextNamesGpusTheProbeFound)
{
    QString problem;
    const auto lanes = parseLanes("cuda:0, cuda:1", twoH200AndAnA100(), problem);
    ASSERT_TRUE(problem.isEmpty()) << problem.toStdString();
    ASSERT_EQ(lanes.size(), 2u);
    EXPECT_EQ(lanes[1].device, "cuda:1");
    EXPECT_EQ(lanes[1].model, "NVIDIA H200");
    EXPECT_EQ(lanes[1].uuid, "GPU-bbbb");
    EXPECT_EQ(lanes[1].cudaIndex, 1);
    EXPECT_EQ(parseLanes("all", twoH200AndAnA100(), problem).size(), 3u);

    EXPECT_TRUE(parseLanes("cuda:0,cuda:3", twoH200AndAnA100(), problem).empty());
    EXPECT_TRUE(problem.contains("cuda:3 is not here") && problem.contains("3 CUDA device(s)"))
        << problem.toStdString();
    EXPECT_TRUE(parseLanes("cuda:0,cuda:0", twoH200AndAnA100(), problem).empty());
    EXPECT_TRUE(problem.contains("named twice")) << problem.toStdString();
    EXPECT_TRUE(parseLanes("cuda:0,cpu:1", twoH200AndAnA100(), problem).empty());
    EXPECT_TRUE(problem.contains("name one kind")) << problem.toStdString();
    EXPECT_TRUE(parseLanes("gpu0", twoH200AndAnA100(), problem).empty());
    EXPECT_TRUE(problem.contains("'gpu0' is not a device")) << problem.toStdString();
    EXPECT_TRUE(parseLanes("all", {}, problem).empty());
    EXPECT_TRUE(problem.contains("no CUDA device")) << problem.toStdString();

    const auto slots = parseLanes("cpu:0,cpu:1", {}, problem);
    ASSERT_EQ(slots.size(), 2u) << problem.toStdString();
    EXPECT_EQ(slots[0].device, "cpu");
    EXPECT_EQ(slots[1].label, "cpu slot 1");
    EXPECT_EQ(slots[1].cudaIndex, -1);
    EXPECT_EQ(lanesText(slots), "cpu:0,cpu:1");
}

TEST(SweepLanes, AMixedHostIsSplitByModelAndSaysSo)
{
    QString problem;
    const auto groups = groupByModel(parseLanes("all", twoH200AndAnA100(), problem));
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(lanesText(groups[0]), "cuda:0,cuda:1") << "the larger group runs the sweep";
    EXPECT_EQ(lanesText(groups[1]), "cuda:2");
    const QString note = splitNote(groups);
    EXPECT_TRUE(note.contains("cuda:0,cuda:1 (NVIDIA H200)")) << note.toStdString();
    EXPECT_TRUE(note.contains("leaves out cuda:2 (NVIDIA A100-SXM4-80GB)")) << note.toStdString();
    EXPECT_TRUE(note.contains("--devices cuda:2")) << note.toStdString();
    EXPECT_TRUE(splitNote(groupByModel(parseLanes("cuda:0,cuda:1", twoH200AndAnA100(), problem))).isEmpty());
}

TEST(SweepLanes, ProbeOutputListsEachGpuAndOlderWorkersTheCountAlone)
{
    const auto gpus = parseFoundGpus("2\n0\tNVIDIA H200\tGPU-aaaa\t00000000:19:00.0\t143771\n"
                                     "1\tNVIDIA H200\tGPU-bbbb\t00000000:3B:00.0\t143771\n");
    ASSERT_EQ(gpus.size(), 2u);
    EXPECT_EQ(gpus[1].index, 1);
    EXPECT_EQ(gpus[1].name, "NVIDIA H200");
    EXPECT_EQ(gpus[1].uuid, "GPU-bbbb");
    EXPECT_EQ(gpus[1].pciBusId, "00000000:3B:00.0");
    EXPECT_EQ(gpus[1].memoryMib, 143771);
    const auto older = parseFoundGpus("2\n");
    ASSERT_EQ(older.size(), 2u);
    EXPECT_EQ(older[1].name, "GPU 1");
    EXPECT_TRUE(parseFoundGpus("0\n").empty());
    EXPECT_TRUE(parseFoundGpus("").empty());
}

TEST(SweepWorldSizes, EachConfigurationAtEachWorldSizeInThePythonWorker)
{
    SweepRequest request;
    RunConfig pinned;
    pinned.device = "cuda:0";
    pinned.cpuAffinity = "one";
    RunConfig plain;
    plain.device = "cuda:0";
    plain.tf32 = true;
    request.configs = {pinned, plain};
    request.worldSizes = {1, 2};
    const SweepRequest r = withDefaults(request);
    ASSERT_EQ(r.configs.size(), 4u) << "two configurations at two world sizes";
    for (const RunConfig &c : r.configs) {
        EXPECT_EQ(c.runtime, Runtime::Python) << canonicalName(c);
        EXPECT_EQ(c.device, "cuda") << "ranks take cuda:0.. of what they see: " << canonicalName(c);
        EXPECT_TRUE(validate(c).empty()) << canonicalName(c) << ": " << describe(validate(c));
    }
    EXPECT_EQ(r.configs[0].cpuAffinity, "one") << "world size 1 keeps its pin";
    EXPECT_EQ(r.configs[2].worldSize, 2);
    EXPECT_EQ(r.configs[2].cpuAffinity, "none") << "every rank would pin to the same core";
    EXPECT_TRUE(validate(r).empty());
    request.worldSizes = {1, 65};
    EXPECT_FALSE(validate(request).empty());
}

TEST(SweepName, ItNamesOnlyTheShapeTheModelIsKnownToTake)
{
    // A sweep's automatic name: ResNet18 takes images, so its size is named; another model's input
    // is known only to the worker, so only a shape set away from the defaults is.
    SweepRequest request;
    request.preset = "ledger";
    RunConfig c;
    c.device = "cuda";
    c.batch = 16;
    request.configs = {c};
    EXPECT_EQ(withDefaults(request).name, "ledger cuda b16 224px");
    request.configs.front().model = "hf:bert";
    request.configs.front().sequenceLength = 512;
    EXPECT_EQ(withDefaults(request).name, "ledger cuda hf:bert b16 s512") << "a token model is not 224px";
    request.configs.front().model = "timm:convnext_tiny";
    request.configs.front().sequenceLength = RunConfig{}.sequenceLength;
    request.configs.front().imageSize = 64;
    EXPECT_EQ(withDefaults(request).name, "ledger cuda timm:convnext_tiny b16 64px");
}

TEST_F(SupervisorTest, LanesRunAtOnceAndNeverTwoRunsOnOneLane)
{
    std::vector<RunConfig> configs;
    for (int batch : {2, 4, 6})
        configs.push_back(smallConfig(batch));
    const SweepPlan p = plan(configs, 2);
    const QString starts = dir_.filePath("starts"), ends = dir_.filePath("ends");
    RunnerOptions o = options(
        fakeWorker({"--stamp", starts, "--replay", dataFile("worker-ok.jsonl"), "--sleep", "0.4", "--stamp", ends}));
    o.lanes = {LaneDevice{"cpu", "cpu slot 0", "cpu", {}, -1}, LaneDevice{"cpu", "cpu slot 1", "cpu", {}, -1}};
    const Outcome out = run(p, o, {}, 20000);
    ASSERT_EQ(out.finishedCount, 1);
    EXPECT_EQ(reader()->sweep(p.sweepId)->status, store::SweepStatus::Complete);

    const auto byLane = intervals(starts, ends);
    ASSERT_EQ(byLane.size(), 2u) << "both slots ran processes";
    std::size_t processes = 0;
    for (const auto &[lane, spans] : byLane) {
        processes += spans.size();
        for (std::size_t i = 1; i < spans.size(); ++i)
            EXPECT_LE(spans[i - 1].second, spans[i].first) << lane.toStdString() << ": two runs at once";
    }
    EXPECT_EQ(processes, 6u);
    // The lanes overlapped: some process of slot 0 ran while one of slot 1 did.
    const auto &a = byLane.at("cpu slot 0");
    const auto &b = byLane.at("cpu slot 1");
    const bool overlapped = std::any_of(a.begin(), a.end(), [&](const auto &x) {
        return std::any_of(b.begin(), b.end(), [&](const auto &y) { return x.first < y.second && y.first < x.second; });
    });
    EXPECT_TRUE(overlapped) << "the two slots never ran at once";

    for (const auto &run : reader()->runs(p.sweepId)) {
        EXPECT_EQ(run.status, RunStatus::Complete) << run.configName;
        const QJsonObject lane = laneOf(run);
        EXPECT_TRUE(lane.value("device").toString().startsWith("cpu slot")) << run.laneJson;
        EXPECT_EQ(lane.value("lanes").toInt(), 2) << run.laneJson;
    }
}

TEST_F(SupervisorTest, RepeatsKeepToOneModelAndARetiredLaneDoesNotStopTheOthers)
{
    std::vector<RunConfig> configs;
    for (int batch : {2, 4, 6, 8})
        configs.push_back(smallConfig(batch));
    const SweepPlan p = plan(configs, 3);
    RunnerOptions o =
        options(fakeWorker({"--fail-on-lane", "a1", "--replay", dataFile("worker-ok.jsonl"), "--sleep", "0.2"}));
    o.lanes = {fakeGpu("a0", "Model A", 0), fakeGpu("a1", "Model A", 1), fakeGpu("b0", "Model B", 2)};
    const Outcome out = run(p, o, {}, 30000);
    ASSERT_EQ(out.finishedCount, 1);
    EXPECT_EQ(reader()->sweep(p.sweepId)->status, store::SweepStatus::Complete);
    EXPECT_TRUE(std::any_of(out.log.begin(), out.log.end(), [](const QString &l) {
        return l.contains("lane a1 retired");
    })) << out.log.join('|').toStdString();

    std::map<std::string, std::set<QString>> models;
    std::map<std::string, int> complete;
    int failedOnA1 = 0;
    for (const auto &run : reader()->runs(p.sweepId)) {
        const QJsonObject lane = laneOf(run);
        if (run.status == RunStatus::Failed) {
            EXPECT_EQ(lane.value("device").toString(), "a1") << run.laneJson;
            EXPECT_EQ(run.category, FailureCategory::CudaUnavailable);
            ++failedOnA1;
            continue;
        }
        EXPECT_EQ(run.status, RunStatus::Complete) << run.configName;
        EXPECT_NE(lane.value("device").toString(), "a1") << "a retired lane takes no more runs";
        models[run.configName].insert(lane.value("model").toString());
        ++complete[run.configName];
    }
    EXPECT_EQ(failedOnA1, 1) << "the lane retires after its first failure";
    ASSERT_EQ(complete.size(), 4u);
    for (const auto &[name, count] : complete)
        EXPECT_EQ(count, 3) << name << ": the failed run was queued again and ran on another lane";
    for (const auto &[name, seen] : models)
        EXPECT_EQ(seen.size(), 1u) << name << ": repeats on more than one model";
}

TEST_F(SupervisorTest, DataParallelRunHoldsALaneForEachRank)
{
    RunConfig ddp = smallConfig(4);
    ddp.runtime = Runtime::Python;
    ddp.worldSize = 2;
    RunConfig tooWide = ddp;
    tooWide.worldSize = 3;
    const SweepPlan p = plan({ddp, tooWide});
    const QString record = dir_.filePath("record");
    const WorkerCommand worker = fakeWorker({"--env", "STEPSCOPE_LANE", "--env", "CUDA_VISIBLE_DEVICES", "--record",
                                             record, "--replay", dataFile("worker-ok.jsonl")});
    RunnerOptions o = options(worker, worker);
    o.lanes = {fakeGpu("a0", "Model A", 0), fakeGpu("a1", "Model A", 1)};
    const Outcome out = run(p, o);
    ASSERT_EQ(out.finishedCount, 1);

    ASSERT_EQ(out.runFinished.size(), 2u) << "the run no lanes could hold is said to have failed";
    EXPECT_EQ(out.started.size(), 2u);
    EXPECT_TRUE(std::any_of(out.runFinished.begin(), out.runFinished.end(),
                            [](const auto &f) { return f.second == "invalid-config"; }));
    const QStringList lines = linesOf(record);
    ASSERT_EQ(lines.size(), 1) << "world size 3 never started: two lanes cannot hold it";
    EXPECT_TRUE(lines[0].contains("STEPSCOPE_LANE=[a0+a1]")) << lines[0].toStdString();
    EXPECT_TRUE(lines[0].contains("CUDA_VISIBLE_DEVICES=[0,1]")) << lines[0].toStdString();
    EXPECT_TRUE(lines[0].contains(R"("device":"cuda")")) << "its ranks take cuda:0.. of what they see";

    const auto runs = reader()->runs(p.sweepId);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].status, RunStatus::Complete);
    EXPECT_EQ(laneOf(runs[0]).value("devices").toArray().size(), 2) << runs[0].laneJson;
    EXPECT_EQ(runs[1].status, RunStatus::Failed);
    EXPECT_EQ(runs[1].category, FailureCategory::InvalidConfig);
    EXPECT_TRUE(contains(runs[1].message, "world_size 3 needs 3 devices")) << runs[1].message;
}

} // namespace stepscope::supervisor::test
