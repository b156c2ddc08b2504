// A run's profile (issue 18): a Kineto trace read into a summary (GPU and CPU), its JSON round
// trip, the kernel families, the verdict and the kernel diff.
#include "profile/kernel_diff.h"
#include "profile/kernel_family.h"
#include "profile/trace_summary.h"
#include "profile/why.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

namespace stepscope::profile
{
namespace
{

QByteArray fixture(const char *name)
{
    QFile f(QString(STEPSCOPE_SOURCE_DIR) + "/tests/data/" + name);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << name;
    return f.readAll();
}

// The fixture's figures, worked out by hand from its events (two profiled steps in a 10 ms window):
// kernels 1000 + 1000 + 500 + the union of two overlapping elementwise kernels (3600-3800 and
// 3650-3750: 200) + 300, memcpy 100, memset 50; one kernel and one launch after the window.
TEST(TraceSummary, GpuTraceGivesBusyUnionKernelsLaunchesAndFamilies)
{
    std::string problem;
    const auto s = summarizeTrace(fixture("profile-trace-gpu.json"), {2, 1.5}, problem);
    ASSERT_TRUE(s) << problem;
    EXPECT_EQ(s->device, "cuda");
    EXPECT_EQ(s->steps, 2);
    EXPECT_DOUBLE_EQ(s->profiledStepMs, 5.0);
    EXPECT_NEAR(s->busyMs, 3.150 / 2, 1e-9);
    EXPECT_NEAR(s->spanMs, (5300.0 - 100.0) / 1000 / 2, 1e-9);
    EXPECT_DOUBLE_EQ(s->kernelsPerStep, 3.0);  // six kernels in the window
    EXPECT_DOUBLE_EQ(s->launchesPerStep, 3.5); // six cudaLaunchKernel and a cudaGraphLaunch; no sync
    EXPECT_NEAR(s->launchCpuMs, 0.080 / 2, 1e-9);
    EXPECT_NEAR(s->memcpyMs, 0.05, 1e-9);
    EXPECT_NEAR(s->memsetMs, 0.025, 1e-9);
    EXPECT_NEAR(s->busyShare(), 1.575 / 5.0, 1e-9);
    ASSERT_TRUE(s->profilerGflop);
    EXPECT_DOUBLE_EQ(*s->profilerGflop, 1.5);
    EXPECT_NEAR(s->family(Family::ConvGemm).msPerStep, 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(s->family(Family::ConvGemm).countPerStep, 1.0);
    EXPECT_NEAR(s->family(Family::Normalization).msPerStep, 0.25, 1e-9);
    EXPECT_NEAR(s->family(Family::Elementwise).msPerStep, 0.15, 1e-9);
    EXPECT_NEAR(s->family(Family::Optimizer).msPerStep, 0.15, 1e-9);
    EXPECT_NEAR(s->family(Family::Copies).msPerStep, 0.075, 1e-9);
    ASSERT_FALSE(s->kernels.empty());
    EXPECT_EQ(s->kernels.front().name.rfind("sm90_xmma_fprop", 0), 0u); // largest first
    EXPECT_DOUBLE_EQ(s->kernels.front().countPerStep, 1.0);
    EXPECT_TRUE(s->note.empty()) << s->note;
}

TEST(TraceSummary, RefusesTracesItCannotRead)
{
    std::string problem;
    EXPECT_FALSE(summarizeTrace("not json", {2, {}}, problem));
    EXPECT_NE(problem.find("not JSON"), std::string::npos) << problem;
    EXPECT_FALSE(
        summarizeTrace(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1}]})", {2, {}}, problem));
    EXPECT_NE(problem.find("annotation"), std::string::npos) << problem;
    EXPECT_FALSE(summarizeTrace(fixture("profile-trace-gpu.json"), {0, {}}, problem));
}

// A CPU run: no GPU activity, so ATen ops stand in, each by its self time: the convolution keeps
// its work, not the allocation inside it; busy is the time inside top-level ops.
TEST(TraceSummary, CpuTraceReadsAtenOpsBySelfTime)
{
    QJsonArray events;
    const auto op = [&](const char *cat, const char *name, double ts, double dur) {
        events.append(QJsonObject{{"ph", "X"}, {"cat", cat}, {"name", name}, {"tid", 1}, {"ts", ts}, {"dur", dur}});
    };
    op("user_annotation", "stepscope::profiled_steps", 0, 1000);
    op("cpu_op", "aten::conv2d", 100, 400);             // holds the two below
    op("cpu_op", "aten::mkldnn_convolution", 110, 380); // holds the empty
    op("cpu_op", "aten::empty", 120, 20);
    op("cpu_op", "aten::add_", 600, 100);
    op("cpu_op", "aten::add_", 5000, 100); // outside the window
    std::string problem;
    const auto s = summarizeTrace(QJsonDocument(QJsonObject{{"traceEvents", events}}).toJson(), {1, {}}, problem);
    ASSERT_TRUE(s) << problem;
    EXPECT_EQ(s->device, "cpu");
    EXPECT_NEAR(s->busyMs, 0.5, 1e-9); // conv2d 400 + add_ 100
    EXPECT_DOUBLE_EQ(s->kernelsPerStep, 4.0);
    EXPECT_NEAR(s->family(Family::ConvGemm).msPerStep, (20 + 360) / 1000.0, 1e-9); // conv2d's and mkldnn's self
    EXPECT_NEAR(s->family(Family::Elementwise).msPerStep, 0.1, 1e-9);
    ASSERT_FALSE(s->kernels.empty());
    EXPECT_EQ(s->kernels.front().name, "aten::mkldnn_convolution");
    EXPECT_NEAR(s->kernels.front().msPerStep, 0.36, 1e-9);
}

TEST(ProfileSummary, JsonRoundTripKeepsEveryFigure)
{
    std::string problem;
    StoredProfile stored;
    stored.summary = summarizeTrace(fixture("profile-trace-gpu.json"), {2, 1.5}, problem);
    stored.traceFile = "m.sqlite.traces/run-3.trace.json.gz";
    const auto back = profileFromJson(toJson(stored));
    ASSERT_TRUE(back && back->summary);
    EXPECT_EQ(back->traceFile, stored.traceFile);
    EXPECT_DOUBLE_EQ(back->summary->busyMs, stored.summary->busyMs);
    EXPECT_DOUBLE_EQ(back->summary->launchCpuMs, stored.summary->launchCpuMs);
    EXPECT_EQ(back->summary->kernels.size(), stored.summary->kernels.size());
    EXPECT_EQ(back->summary->kernels[2].family, stored.summary->kernels[2].family);
    EXPECT_DOUBLE_EQ(*back->summary->profilerGflop, 1.5);
    EXPECT_DOUBLE_EQ(back->summary->family(Family::Copies).msPerStep, stored.summary->family(Family::Copies).msPerStep);

    StoredProfile failed;
    failed.problem = "the profiler failed: CUPTI";
    const auto f = profileFromJson(toJson(failed));
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->summary);
    EXPECT_EQ(f->problem, failed.problem);
    EXPECT_FALSE(profileFromJson(""));
    EXPECT_FALSE(profileFromJson("{broken")->summary);
}

TEST(KernelFamily, NamesOfCudnnCublasInductorAndAten)
{
    EXPECT_EQ(kernelFamily("sm90_xmma_dgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc"), Family::ConvGemm);
    EXPECT_EQ(kernelFamily("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm>"), Family::ConvGemm);
    EXPECT_EQ(kernelFamily("triton_tem_fused_convolution_0"), Family::ConvGemm);
    EXPECT_EQ(kernelFamily("triton_per_fused__native_batch_norm_legit_functional_1"), Family::Elementwise);
    EXPECT_EQ(kernelFamily("void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>"), Family::Normalization);
    EXPECT_EQ(kernelFamily("void at::native::batch_norm_collect_statistics_kernel"), Family::Normalization);
    EXPECT_EQ(kernelFamily("void at::native::multi_tensor_apply_kernel<TensorListMetadata<3>>"), Family::Optimizer);
    EXPECT_EQ(kernelFamily("void cudnn::engines_precompiled::nchwToNhwcKernel<float>"), Family::Copies);
    EXPECT_EQ(kernelFamily("void at::native::vectorized_elementwise_kernel<4, threshold_kernel>"), Family::Elementwise);
    EXPECT_EQ(kernelFamily("aten::convolution_backward"), Family::ConvGemm);
    EXPECT_EQ(kernelFamily("aten::empty"), Family::Other);
}

ProfileSummary summary(double busyMs, double stepMs, const std::string &device = "cuda")
{
    ProfileSummary s;
    s.steps = 20;
    s.device = device;
    s.busyMs = busyMs;
    s.profiledStepMs = stepMs;
    return s;
}

TEST(Why, LaunchBoundAgainstTheTimedStepNamesTheKnobsNotOnYet)
{
    RunConfig eager;
    eager.device = "cuda";
    // Profiled at 16 ms (the profiler slows launches), timed at 5 ms: 1.05 ms busy is 21% of the real step.
    const Verdict v = verdict(summary(1.05, 16.0), TimedStep{5.0, 0.02}, eager);
    EXPECT_EQ(v.bound, Bound::LaunchBound);
    EXPECT_TRUE(v.againstTimed);
    EXPECT_NEAR(v.busyShare, 0.21, 1e-9);
    EXPECT_NE(v.text.find("the GPU waits 79% of the step"), std::string::npos) << v.text;
    EXPECT_NE(v.text.find("CUDA graph"), std::string::npos) << v.text;

    RunConfig graph = eager;
    graph.cudaGraph = true;
    graph.optimizer = Optimizer::Fused;
    const Verdict g = verdict(summary(3.64, 3.94), std::nullopt, graph);
    EXPECT_EQ(g.bound, Bound::GpuBound);
    EXPECT_FALSE(g.againstTimed);
    EXPECT_NE(g.text.find("busy 92% of the profiled step"), std::string::npos) << g.text;
    EXPECT_NE(g.text.find("bf16"), std::string::npos) << g.text;
    graph.autocast = Autocast::BF16;
    graph.channelsLast = true;
    graph.compile = CompileMode::Default;
    EXPECT_TRUE(verdict(summary(3.64, 3.94), std::nullopt, graph).advice.empty());

    EXPECT_EQ(verdict(summary(2.73, 4.86), std::nullopt, eager).bound, Bound::LaunchBound); // 56%
    EXPECT_EQ(verdict(summary(3.0, 4.0), std::nullopt, eager).bound, Bound::Mixed);         // 75%
    EXPECT_EQ(verdict(summary(40, 50, "cpu"), std::nullopt, RunConfig{}).bound, Bound::CpuCompute);
    EXPECT_EQ(verdict(summary(10, 50, "cpu"), std::nullopt, RunConfig{}).bound, Bound::CpuFramework);
}

// Issue 35.7: the same 2.70 ms of GPU work timed at 3.25 ms in one sweep (83% busy) and 2.87 ms in
// another (94%). With intervals that wide the timed step says more about the processes than about
// the step, so both are judged from the profiled step, alike, and say so.
TEST(Why, ANoisyTimedStepIsSetAsideForTheProfiledOne)
{
    RunConfig eager;
    eager.device = "cuda";
    const ProfileSummary work = summary(2.70, 2.90);
    const Verdict slow = verdict(work, TimedStep{3.25, 0.18}, eager);
    const Verdict fast = verdict(work, TimedStep{2.87, 0.18}, eager);
    EXPECT_EQ(slow.bound, fast.bound);
    EXPECT_EQ(slow.bound, Bound::GpuBound); // 2.70 / 2.90: 93%
    EXPECT_FALSE(slow.againstTimed);
    EXPECT_DOUBLE_EQ(slow.stepMs, 2.90);
    EXPECT_EQ(slow.timedSetAside, "it moved ±18% between processes");
    EXPECT_NE(slow.text.find("busy 93% of the profiled step (not the timed step: it moved ±18% between processes)"),
              std::string::npos)
        << slow.text;

    // A steady interval keeps the timed step (here 5% faster than the profiled one): its verdict is its own.
    const Verdict steady = verdict(summary(2.70, 3.40), TimedStep{3.25, 0.03}, eager);
    EXPECT_TRUE(steady.againstTimed);
    EXPECT_EQ(steady.bound, Bound::Mixed); // 83%
    EXPECT_TRUE(steady.timedSetAside.empty());
    EXPECT_EQ(steady.text.find("not the timed step"), std::string::npos) << steady.text;

    // A timed step slower than the profiled one (which the profiler slowed) is of slower processes.
    const Verdict slower = verdict(work, TimedStep{3.40, std::nullopt}, eager);
    EXPECT_FALSE(slower.againstTimed);
    EXPECT_EQ(slower.bound, Bound::GpuBound);
    EXPECT_NE(slower.text.find("it was 17% slower than the profiled one"), std::string::npos) << slower.text;
}

// Each advised knob applied to the row's configuration in one place; one the configuration cannot
// take says why (validate()'s words).
TEST(Why, AdviceAppliesToTheConfigurationOrSaysWhyNot)
{
    RunConfig eager;
    eager.device = "cuda";
    const Advised graph = applyAdvice(eager, Advice::CudaGraph);
    ASSERT_TRUE(graph.config);
    EXPECT_TRUE(graph.config->cudaGraph);
    EXPECT_EQ(applyAdvice(eager, Advice::FusedSgd).config->optimizer, Optimizer::Fused);
    const Advised ro = applyAdvice(eager, Advice::CompileReduceOverhead);
    ASSERT_TRUE(ro.config);
    EXPECT_EQ(ro.config->compile, CompileMode::ReduceOverhead);
    EXPECT_EQ(ro.config->runtime, Runtime::Python);
    EXPECT_EQ(applyAdvice(eager, Advice::PinOneCore).config->cpuAffinity, "one");

    RunConfig cpu; // a CPU run: no CUDA graph there
    const Advised none = applyAdvice(cpu, Advice::CudaGraph);
    EXPECT_FALSE(none.config);
    EXPECT_NE(none.problem.find("CUDA"), std::string::npos) << none.problem;

    // The verdict's advice is what applyAdvice takes, in the words of its text.
    const Verdict v = verdict(summary(1.05, 16.0), TimedStep{5.0, std::nullopt}, eager);
    ASSERT_FALSE(v.advice.empty());
    EXPECT_EQ(v.advice.front(), Advice::CudaGraph);
    EXPECT_NE(v.text.find(toString(v.advice.back())), std::string::npos) << v.text;
}

TEST(KernelDiff, AddedRemovedFasterSlowerAndTheSplitOfTheSteadyDifference)
{
    ProfileSummary a = summary(3.5, 16.0), b = summary(3.0, 4.0);
    a.kernelsPerStep = 368;
    b.kernelsPerStep = 334;
    a.kernels = {{"conv_fprop", Family::ConvGemm, 20, 2.0},
                 {"bn_fw", Family::Normalization, 20, 1.0},
                 {"elementwise_add", Family::Elementwise, 30, 0.5}};
    b.kernels = {{"conv_fprop", Family::ConvGemm, 20, 1.9},
                 {"triton_poi_fused_0", Family::Elementwise, 10, 0.6},
                 {"elementwise_add", Family::Elementwise, 30, 0.5}};
    a.families = {{Family::ConvGemm, 20, 2.0}, {Family::Normalization, 20, 1.0}, {Family::Elementwise, 30, 0.5}};
    b.families = {{Family::ConvGemm, 20, 1.9}, {Family::Elementwise, 40, 1.1}};
    const DiffSide sa{&a, 5.0, 2000.0, "eager"}, sb{&b, 3.2, 30000.0, "compiled"};
    const ProfileDiff d = diffProfiles(sa, sb);
    EXPECT_TRUE(d.timed);
    EXPECT_DOUBLE_EQ(d.idleA(), 1.5);
    EXPECT_NEAR(d.idleB(), 0.2, 1e-12);
    ASSERT_TRUE(d.firstStepDeltaMs);
    EXPECT_DOUBLE_EQ(*d.firstStepDeltaMs, 28000.0);
    EXPECT_EQ(d.count(KernelChange::Kind::Added), 1);
    EXPECT_EQ(d.count(KernelChange::Kind::Removed), 1);
    EXPECT_EQ(d.count(KernelChange::Kind::Faster), 1); // 2.0 -> 1.9 is 5%: at the line, counted
    EXPECT_EQ(d.count(KernelChange::Kind::Same), 1);
    EXPECT_EQ(d.kernels.front().name, "bn_fw"); // the largest change first
    EXPECT_EQ(d.kernels.back().kind, KernelChange::Kind::Same);
    EXPECT_NEAR(d.families[static_cast<int>(Family::Normalization)].msB, 0.0, 1e-12);
    const std::string text = diffText(d, sa, sb);
    EXPECT_NE(text.find("Steady step: 5.00 ms -> 3.20 ms (-1.80 ms)"), std::string::npos) << text;
    EXPECT_NE(text.find("Most of the change is waiting (-1.30 ms of -1.80 ms)"), std::string::npos) << text;
    EXPECT_NE(text.find("1 added, 1 removed, 1 faster, 0 slower, 1 the same"), std::string::npos) << text;
    EXPECT_NE(text.find("removed  -1.00 ms"), std::string::npos) << text;
}

} // namespace
} // namespace stepscope::profile
