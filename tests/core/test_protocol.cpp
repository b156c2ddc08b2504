#include "protocol/protocol.h"
#include <algorithm>

#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <map>
#include <string>
#include <vector>

namespace stepscope::protocol
{
namespace
{

using T = Message::Type;

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

TEST(Protocol, WritersEndInOneNewline)
{
    for (const QByteArray &line :
         {helloLine({}), readyLine(1), firstStepLine(1), stepsLine(2, {}, {1}), memoryLine(1, 2), checkLine({1}),
          doneLine(3, 1), memorySnapshotLine(profile::SnapshotKind::Step, "/a\nb", ""), errorLine(Failure{FailureCategory::Timeout, "a\nb", "c\nd"})}) {
        ASSERT_FALSE(line.isEmpty());
        EXPECT_TRUE(line.endsWith('\n')) << line.toStdString();
        EXPECT_EQ(line.count('\n'), 1) << "one message per line: " << line.toStdString();
    }
}

// Issue 30.4: the model's facts at setup, with a count or with why there is none; a count that is no
// number, or one of no known source, is refused rather than stored as a figure.
TEST(Protocol, EnergyRoundTripAndRefusals)
{
    EnergyReading e;
    e.firstStepJoules = 812.0;
    e.firstStepSeconds = 2.41;
    e.blockJoules = 362.9;
    e.blockSeconds = 0.914;
    e.blockSteps = 100;
    Message m = parseLine(energyLine(e));
    ASSERT_EQ(m.type, T::Energy) << m.problem;
    EXPECT_EQ(m.energy.firstStepJoules, e.firstStepJoules);
    EXPECT_EQ(m.energy.firstStepSeconds, e.firstStepSeconds);
    EXPECT_EQ(m.energy.blockJoules, e.blockJoules);
    EXPECT_EQ(m.energy.blockSeconds, e.blockSeconds);
    EXPECT_EQ(m.energy.blockSteps, 100);
    EXPECT_TRUE(m.energy.problem.empty());

    // What the Python worker writes for a CPU run.
    m = parseLine(R"({"type":"energy","problem":"no energy counter: a CPU run"})");
    ASSERT_EQ(m.type, T::Energy) << m.problem;
    EXPECT_FALSE(m.energy.blockJoules);
    EXPECT_EQ(m.energy.problem, "no energy counter: a CPU run");

    EXPECT_EQ(parseLine(R"({"type":"energy"})").type, T::Invalid) << "neither a figure nor a problem";
    EXPECT_EQ(parseLine(R"({"type":"energy","block_j":-3,"block_s":1,"block_steps":5})").type, T::Invalid);
    EXPECT_EQ(parseLine(R"({"type":"energy","block_j":30,"block_s":1})").type, T::Invalid) << "joules over no steps";
}

TEST(Protocol, ModelFactsRoundTrip)
{
    ModelFacts f;
    f.description = "hf:gpt2 (0.1 M parameters, 16 tokens of a 50257-word vocabulary)";
    f.parameters = 1234567;
    f.forwardFlops = 2.5e9;
    f.trainingFlops = 7.5e9;
    f.flopsSource = FlopsSource::FlopCounter;
    const QByteArray line = modelLine(f);
    EXPECT_TRUE(line.endsWith('\n'));
    Message m = parseLine(line);
    ASSERT_EQ(m.type, T::Model) << m.problem;
    EXPECT_EQ(m.model.description, f.description);
    EXPECT_EQ(m.model.parameters, f.parameters);
    EXPECT_EQ(m.model.forwardFlops, f.forwardFlops);
    EXPECT_EQ(m.model.trainingFlops, f.trainingFlops);
    EXPECT_EQ(m.model.flopsSource, FlopsSource::FlopCounter);

    m = parseLine(R"j({"type":"model","description":"x:f (1.0 M parameters, its own batch)","parameters":1000000,)j"
                  R"j("flops_problem":"the model cannot run on the meta device"})j");
    ASSERT_EQ(m.type, T::Model) << m.problem;
    EXPECT_FALSE(m.model.trainingFlops);
    EXPECT_EQ(m.model.flopsSource, FlopsSource::None);
    EXPECT_EQ(m.model.flopsProblem, "the model cannot run on the meta device");

    EXPECT_EQ(parseLine(R"({"type":"model","description":"x","training_flops":"many","flops_source":"torch.utils.flop_counter"})").type,
              T::Invalid);
    EXPECT_EQ(parseLine(R"({"type":"model","description":"x","training_flops":-1,"flops_source":"torch.utils.flop_counter"})").type,
              T::Invalid);
    EXPECT_EQ(parseLine(R"({"type":"model","description":"x","training_flops":5})").type, T::Invalid)
        << "a figure of no known source";
}

TEST(Protocol, HelloRoundTrip)
{
    const std::vector<std::pair<std::string, std::string>> env{{"worker", "native"},        {"gpu", "NVIDIA H200"},
                                                               {"torch", "2.5.1+cu124"},    {"cuda_runtime", "12.4"},
                                                               {"host", "n\u00f6de-\"7\""}, {"empty", ""}};
    const Message m = parseLine(helloLine(env));
    ASSERT_EQ(m.type, T::Hello) << m.problem;
    EXPECT_EQ(m.protocolVersion, kVersion);
    const std::map<std::string, std::string> got(m.environment.begin(), m.environment.end());
    const std::map<std::string, std::string> want(env.begin(), env.end());
    EXPECT_EQ(got, want);
    // The raw object is kept for the store.
    const auto doc = QJsonDocument::fromJson(m.environmentJson);
    ASSERT_TRUE(doc.isObject()) << m.environmentJson.toStdString();
    EXPECT_EQ(doc.object().value("gpu").toString(), "NVIDIA H200");
    EXPECT_EQ(doc.object().size(), 6);
}

TEST(Protocol, HelloWithNumbersInEnvironment)
{
    const Message m = parseLine(R"({"type":"hello","protocol":1,"env":{"gpu_sms":132,"cuda":true}})");
    ASSERT_EQ(m.type, T::Hello) << m.problem;
    const std::map<std::string, std::string> got(m.environment.begin(), m.environment.end());
    EXPECT_EQ(got.at("gpu_sms"), "132");
    EXPECT_EQ(got.at("cuda"), "true");
}

TEST(Protocol, TimingsRoundTrip)
{
    Message m = parseLine(readyLine(1.9375));
    ASSERT_EQ(m.type, T::Ready) << m.problem;
    EXPECT_DOUBLE_EQ(m.seconds, 1.9375);
    m = parseLine(firstStepLine(0.41));
    ASSERT_EQ(m.type, T::FirstStep) << m.problem;
    EXPECT_EQ(m.seconds, 0.41); // shortest round-trip representation: exact
    m = parseLine(doneLine(111, 14.2));
    ASSERT_EQ(m.type, T::Done) << m.problem;
    EXPECT_EQ(m.steps, 111);
    EXPECT_EQ(m.meanWallMs, 14.2);
}

TEST(Protocol, StepsRoundTrip)
{
    const std::vector<double> gpu{14.1, 0.1, 1e-7, 123456.789012345678, 0};
    const std::vector<double> wall{14.3, 0.30000000000000004, 2e-7, 123456.9, 1};
    Message m = parseLine(stepsLine(12, gpu, wall));
    ASSERT_EQ(m.type, T::Steps) << m.problem;
    EXPECT_EQ(m.firstIndex, 12);
    EXPECT_EQ(m.gpuMs, gpu);
    EXPECT_EQ(m.wallMs, wall);

    // CPU: no GPU times.
    m = parseLine(stepsLine(1, {}, {5.5, 6.5}));
    ASSERT_EQ(m.type, T::Steps) << m.problem;
    EXPECT_EQ(m.firstIndex, 1);
    EXPECT_TRUE(m.gpuMs.empty());
    EXPECT_EQ(m.wallMs, (std::vector<double>{5.5, 6.5}));
}

TEST(Protocol, MemoryAndCheckRoundTrip)
{
    const std::int64_t allocated = 85899345920; // 80 GiB: beyond 32 bits
    Message m = parseLine(memoryLine(allocated, allocated + 4096));
    ASSERT_EQ(m.type, T::Memory) << m.problem;
    EXPECT_EQ(m.peakAllocated, allocated);
    EXPECT_EQ(m.peakReserved, allocated + 4096);

    const std::vector<double> losses{6.907755278982137, 6.8, 6.75, 0.001};
    m = parseLine(checkLine(losses));
    ASSERT_EQ(m.type, T::Check) << m.problem;
    EXPECT_EQ(m.losses, losses);
}

// Issue 31.2: a memory snapshot's pickle and its kind, or why there is none; a line with neither, with
// both, or of no known kind is refused.
TEST(Protocol, MemorySnapshotRoundTripAndRefusals)
{
    const Message step = parseLine(memorySnapshotLine(profile::SnapshotKind::Step, "/s/memory.pickle", ""));
    ASSERT_EQ(step.type, T::MemorySnapshot) << step.problem;
    EXPECT_EQ(step.snapshotKind, profile::SnapshotKind::Step);
    EXPECT_EQ(step.snapshotPath, "/s/memory.pickle");
    EXPECT_EQ(step.snapshotProblem, "");
    const Message oom = parseLine(memorySnapshotLine(profile::SnapshotKind::OutOfMemory, "/s/memory.pickle", ""));
    EXPECT_EQ(oom.snapshotKind, profile::SnapshotKind::OutOfMemory);
    const Message cpu = parseLine(memorySnapshotLine(profile::SnapshotKind::Step, "", "no memory timeline on the CPU"));
    ASSERT_EQ(cpu.type, T::MemorySnapshot) << cpu.problem;
    EXPECT_EQ(cpu.snapshotPath, "");
    EXPECT_EQ(cpu.snapshotProblem, "no memory timeline on the CPU");
    for (const char *bad : {R"({"type":"memory_snapshot","kind":"step"})",
                            R"({"type":"memory_snapshot","kind":"step","snapshot":"/a","problem":"b"})",
                            R"({"type":"memory_snapshot","kind":"later","snapshot":"/a"})",
                            R"({"type":"memory_snapshot","snapshot":"/a"})"}) {
        const Message m = parseLine(bad);
        EXPECT_EQ(m.type, T::Invalid) << bad;
        EXPECT_TRUE(contains(m.problem, "memory_snapshot")) << m.problem;
    }
}

TEST(Protocol, GpuStateRoundTrip)
{
    const std::vector<std::pair<std::string, std::string>> state{
        {"sm_clock_mhz", "1980"}, {"throttle_reasons", "sw-power-cap,hw-thermal"}, {"temperature_c", "61"}};
    const Message m = parseLine(gpuStateLine(state));
    ASSERT_EQ(m.type, T::GpuState) << m.problem;
    auto sorted = state;
    std::sort(sorted.begin(), sorted.end()); // JSON objects come back in key order
    EXPECT_EQ(m.environment, sorted);
}

TEST(Protocol, PhaseRoundTripAndOpenNames)
{
    Message m = parseLine(phaseLine("compiling", 12.5));
    ASSERT_EQ(m.type, T::Phase) << m.problem;
    EXPECT_EQ(m.phase, "compiling");
    EXPECT_DOUBLE_EQ(m.seconds, 12.5);
    // As the Python worker writes it, and with a phase name this build does not know.
    m = parseLine(R"({"type":"phase","phase":"priming","elapsed_s":0})");
    ASSERT_EQ(m.type, T::Phase) << m.problem;
    EXPECT_EQ(m.phase, "priming");
    EXPECT_EQ(m.seconds, 0.0);
    m = parseLine(R"({"type":"phase","phase":"loading kernels from the cache","elapsed_s":3})");
    ASSERT_EQ(m.type, T::Phase) << m.problem;
    EXPECT_EQ(m.phase, "loading kernels from the cache");
}

TEST(Protocol, CompileInfoKeepsTheWholeObject)
{
    const QByteArray info =
        R"({"mode":"reduce-overhead","backend":"inductor","graphs":2,"graph_breaks":1,)"
        R"("break_reasons":["print() in forward"],"phases":{"dynamo":1.5,"inductor":40.25},"compiled":true})";
    Message m = parseLine(compileLine(info));
    ASSERT_EQ(m.type, T::Compile) << m.problem;
    EXPECT_EQ(QJsonDocument::fromJson(m.compileJson).object(), QJsonDocument::fromJson(info).object());
    EXPECT_FALSE(m.compileJson.contains('\n')) << "stored compact";
    EXPECT_FALSE(m.compileJson.contains(": ")) << "stored compact";

    m = parseLine(R"({"type":"compile","info":{}})");
    ASSERT_EQ(m.type, T::Compile) << m.problem;
    EXPECT_EQ(m.compileJson, "{}");
}

TEST(Protocol, ErrorRoundTripForEveryCategory)
{
    const FailureCategory all[] = {FailureCategory::InvalidConfig,    FailureCategory::CudaUnavailable,
                                   FailureCategory::PythonNotFound,   FailureCategory::TorchMissing,
                                   FailureCategory::TorchTooOld,      FailureCategory::TorchVersionMismatch,
                                   FailureCategory::TritonMissing,    FailureCategory::TritonVersionMismatch,
                                   FailureCategory::CachePathTooLong, FailureCategory::OutOfMemory,
                                   FailureCategory::CompileFailed,    FailureCategory::GraphCaptureFailed,
                                   FailureCategory::WorkerCrashed,    FailureCategory::Timeout,
                                   FailureCategory::Cancelled,        FailureCategory::Internal,
                                   FailureCategory::DistributedFailed};
    for (FailureCategory c : all) {
        const Failure f{c, "CUDA out of memory. Tried to allocate 2.00 GiB",
                        "Traceback (most recent call last):\n  File \"x.py\", line 1\n\t\"quoted\" \\ \u00e9"};
        const Message m = parseLine(errorLine(f));
        ASSERT_EQ(m.type, T::Error) << toString(c) << ": " << m.problem;
        EXPECT_EQ(m.failure.category, c) << toString(c);
        EXPECT_EQ(m.failure.message, f.message);
        EXPECT_EQ(m.failure.detail, f.detail);
    }
    EXPECT_TRUE(contains(errorLine(Failure{FailureCategory::OutOfMemory, "m", ""}).toStdString(),
                         "\"category\":\"out-of-memory\""));
}

TEST(Protocol, RankStepsKeepTheirRankAndRefuseAMissingOne)
{
    const Message m = parseLine(rankStepsLine(1, 2, {3.0, 4.0}, {5.0, 6.5}));
    ASSERT_EQ(m.type, T::RankSteps) << m.problem;
    EXPECT_EQ(m.rank, 1);
    EXPECT_EQ(m.firstIndex, 2);
    EXPECT_EQ(m.wallMs, (std::vector<double>{5.0, 6.5}));
    EXPECT_EQ(m.gpuMs, (std::vector<double>{3.0, 4.0}));
    EXPECT_EQ(parseLine(R"({"type":"rank_steps","first":1,"gpu_ms":[],"wall_ms":[1]})").type, T::Invalid);
    EXPECT_EQ(parseLine(R"({"type":"rank_steps","rank":-1,"first":1,"gpu_ms":[],"wall_ms":[1]})").type, T::Invalid);
}

TEST(Protocol, UnknownErrorCategoryBecomesInternalKeepingTheName)
{
    const Message m = parseLine(R"({"type":"error","category":"gpu-on-fire","message":"smoke","detail":"trace"})");
    ASSERT_EQ(m.type, T::Error) << m.problem;
    EXPECT_EQ(m.failure.category, FailureCategory::Internal);
    EXPECT_EQ(m.failure.message, "smoke");
    EXPECT_TRUE(contains(m.failure.detail, "gpu-on-fire")) << m.failure.detail;
    EXPECT_TRUE(contains(m.failure.detail, "trace")) << m.failure.detail;
}

TEST(Protocol, GarbageIsInvalidWithAReason)
{
    struct Case {
        const char *line;
        const char *mentions; // a word of the problem text
    };
    const Case cases[] = {
        {"Downloading weights... 100%", "not a JSON object"},
        {"", "not a JSON object"},
        {"[1,2,3]", "not a JSON object"},
        {"\"hello\"", "not a JSON object"},
        {R"({"type":"hello","protocol":1)", "not a JSON object"},
        {R"({"type":"frobnicate"})", "frobnicate"},
        {R"({"protocol":1})", "unknown message type"},
        {R"({"type":"steps","first":2,"gpu_ms":[1.0,2.0],"wall_ms":[1.0]})", "differ in length"},
        {R"({"type":"steps","first":0,"gpu_ms":[],"wall_ms":[1.0]})", "first"},
        {R"({"type":"steps","first":2,"gpu_ms":[],"wall_ms":[1.0,"x"]})", "numeric"},
        {R"({"type":"steps","first":2,"wall_ms":[1.0]})", "gpu_ms"},
        {R"({"type":"hello","protocol":2,"env":{}})", "protocol version 2"},
        {R"({"type":"hello","env":{}})", "protocol version 0"},
        {R"({"type":"ready","setup_s":-1})", "setup_s"},
        {R"({"type":"first_step"})", "wall_s"},
        {R"({"type":"check","losses":"6.9"})", "losses"},
        {R"({"type":"phase","elapsed_s":1})", "phase name"},
        {R"({"type":"phase","phase":"","elapsed_s":1})", "phase name"},
        {R"({"type":"phase","phase":7,"elapsed_s":1})", "phase name"},
        {R"({"type":"phase","phase":"compiling"})", "elapsed_s"},
        {R"({"type":"phase","phase":"compiling","elapsed_s":-0.5})", "elapsed_s"},
        {R"({"type":"phase","phase":"compiling","elapsed_s":"12"})", "elapsed_s"},
        {R"({"type":"compile"})", "info object"},
        {R"({"type":"compile","info":"graphs=2"})", "info object"},
        {R"({"type":"compile","info":[1,2]})", "info object"},
    };
    for (const auto &c : cases) {
        const Message m = parseLine(c.line);
        EXPECT_EQ(m.type, T::Invalid) << c.line;
        EXPECT_FALSE(m.problem.empty()) << c.line;
        EXPECT_TRUE(contains(m.problem, c.mentions)) << c.line << " -> " << m.problem;
    }
}

TEST(Protocol, ParseLineToleratesSurroundingWhitespace)
{
    const Message m = parseLine("  " + doneLine(5, 1.5) + "\r\n");
    ASSERT_EQ(m.type, T::Done) << m.problem;
    EXPECT_EQ(m.steps, 5);
}

} // namespace
} // namespace stepscope::protocol
