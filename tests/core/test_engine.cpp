// The native engine on the CPU, with tiny shapes: the model, each knob that applies on a CPU, the
// three SGD implementations, and the runner's event stream.
#include "engine/engine.h"
#include "engine/resnet.h"
#include "engine/training_step.h"

#include "engine_test_util.h"
#include "tiny_config.h"
#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace stepscope;

namespace
{

RunConfig tiny()
{
    return test::tinyCpuConfig(1, 4);
}

std::int64_t parameterCount(engine::ResNet18 &m)
{
    std::int64_t n = 0;
    for (const auto &p : m->parameters())
        n += p.numel();
    return n;
}

struct Recorder : engine::Listener {
    std::vector<std::string> events;
    std::vector<int> indices;
    std::vector<double> losses;
    bool sawGpuTimes = false;
    void ready(double s) override { events.push_back(s >= 0 ? "ready" : "bad"); }
    void firstStep(double s) override { events.push_back(s > 0 ? "first" : "bad"); }
    void steps(int first, const std::vector<double> &gpu, const std::vector<double> &wall) override
    {
        events.push_back("steps");
        sawGpuTimes = sawGpuTimes || !gpu.empty();
        for (std::size_t i = 0; i < wall.size(); ++i)
            indices.push_back(first + static_cast<int>(i));
    }
    void memory(std::int64_t, std::int64_t) override { events.push_back("memory"); }
    void check(const std::vector<double> &l) override
    {
        events.push_back("check");
        losses = l;
    }
    void done(int, double) override { events.push_back("done"); }
};

} // namespace

TEST(EngineModel, ResNet18HasTorchvisionParameterCount)
{
    engine::ResNet18 model(1000);
    EXPECT_EQ(parameterCount(model), 11689512);
}

TEST(EngineModel, OutputShapeFollowsBatchAndClasses)
{
    engine::ResNet18 model(10);
    auto out = model->forward(torch::randn({3, 3, 32, 32}));
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{3, 10}));
}

TEST(EngineKnobs, ChannelsLastChangesStridesOfInputAndWeights)
{
    RunConfig c = tiny();
    engine::TrainingStep plain(c, torch::kCPU);
    EXPECT_TRUE(plain.input().is_contiguous());
    EXPECT_FALSE(plain.model()->conv1->weight.is_contiguous(at::MemoryFormat::ChannelsLast));

    c.channelsLast = true;
    engine::TrainingStep nhwc(c, torch::kCPU);
    EXPECT_TRUE(nhwc.input().is_contiguous(at::MemoryFormat::ChannelsLast));
    EXPECT_FALSE(nhwc.input().is_contiguous());
    EXPECT_TRUE(nhwc.model()->conv1->weight.is_contiguous(at::MemoryFormat::ChannelsLast));
    EXPECT_EQ(nhwc.input().stride(1), 1); // channels innermost
}

TEST(EngineKnobs, Bf16AutocastGivesBf16ActivationsOnCpu)
{
    RunConfig c = tiny();
    engine::TrainingStep fp32(c, torch::kCPU);
    EXPECT_EQ(fp32.forward().scalar_type(), torch::kFloat);
    c.autocast = Autocast::BF16;
    engine::TrainingStep bf16(c, torch::kCPU);
    EXPECT_EQ(bf16.forward().scalar_type(), torch::kBFloat16);
    EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCPU)); // the guard restores the state
    bf16.step();
    EXPECT_EQ(bf16.loss().scalar_type(), torch::kFloat); // cross-entropy runs in fp32 under autocast
}

TEST(EngineKnobs, SgdImplementationsAgreeWithTorchOptim)
{
    RunConfig c = tiny();
    // Reference: the same model and data trained by torch::optim::SGD (momentum 0.9).
    const auto reference = test::referenceSgdWeights(c, torch::kCPU, 3);

    std::vector<std::vector<torch::Tensor>> finals;
    for (auto opt : {Optimizer::PerParameter, Optimizer::Foreach, Optimizer::Fused}) {
        c.optimizer = opt;
        engine::TrainingStep s(c, torch::kCPU);
        for (int i = 0; i < 3; ++i)
            s.step();
        finals.push_back(test::snapshot(s.parameters()));
    }
    for (std::size_t k = 0; k < finals.size(); ++k)
        for (std::size_t i = 0; i < reference.size(); ++i)
            ASSERT_TRUE(torch::allclose(reference[i], finals[k][i], 1e-4, 1e-5)) << "optimizer " << k << " param " << i;

    // First step by hand: with zero momentum, p1 = p0 - lr * grad.
    c.optimizer = Optimizer::Foreach;
    engine::TrainingStep s(c, torch::kCPU);
    auto p0 = s.parameters().back().detach().clone(); // fc bias
    s.step();
    auto grad = s.parameters().back().grad().detach();
    EXPECT_TRUE(torch::allclose(s.parameters().back().detach(), p0 - engine::kLearningRate * grad, 1e-5, 1e-6));
}

TEST(EngineKnobs, TrainingLowersTheLoss)
{
    engine::TrainingStep s(tiny(), torch::kCPU);
    s.step();
    const float first = s.loss().item<float>();
    for (int i = 0; i < 5; ++i)
        s.step();
    EXPECT_LT(s.loss().item<float>(), first);
}

TEST(EngineRunner, StreamsEveryStepInOrderAndTheCheckLosses)
{
    Recorder r;
    std::atomic<bool> cancel{false};
    const RunConfig c = tiny();
    const auto failure = engine::run(c, r, cancel, engine::Clock::now());
    ASSERT_FALSE(failure) << failure->message;
    ASSERT_GE(r.events.size(), 5u);
    EXPECT_EQ(r.events[0], "ready");
    EXPECT_EQ(r.events[1], "first");
    EXPECT_EQ(r.events.back(), "done");
    EXPECT_EQ(r.events[r.events.size() - 2], "check");
    std::vector<int> expected(c.totalSteps());
    for (int i = 0; i < c.totalSteps(); ++i)
        expected[i] = i + 1;
    EXPECT_EQ(r.indices, expected);
    EXPECT_FALSE(r.sawGpuTimes); // CPU: wall time only, never fake GPU times
    EXPECT_EQ(r.losses.size(), static_cast<std::size_t>(std::min(engine::kCheckSteps, c.totalSteps())));
}

TEST(EngineRunner, CancelStopsBetweenSteps)
{
    Recorder r;
    std::atomic<bool> cancel{true};
    const auto failure = engine::run(tiny(), r, cancel, engine::Clock::now());
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->category, FailureCategory::Cancelled);
    EXPECT_EQ(r.indices, std::vector<int>{1}); // only the first step ran
}

TEST(EngineRunner, InvalidAndUnavailableConfigurationsFailWithTheirCategory)
{
    Recorder r;
    std::atomic<bool> cancel{false};
    RunConfig bad = tiny();
    bad.cudaGraph = true; // on the CPU
    auto failure = engine::run(bad, r, cancel, engine::Clock::now());
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->category, FailureCategory::InvalidConfig);
    EXPECT_NE(failure->message.find("cuda_graph"), std::string::npos);

    if (engine::cudaDeviceCount() == 0) {
        RunConfig gpu = tiny();
        gpu.device = "cuda";
        failure = engine::run(gpu, r, cancel, engine::Clock::now());
        ASSERT_TRUE(failure);
        EXPECT_EQ(failure->category, FailureCategory::CudaUnavailable);
    }
}

TEST(EngineEnvironment, NamesTorchAndDevice)
{
    const auto env = engine::probeEnvironment(tiny());
    auto find = [&](const std::string &k) {
        for (const auto &[key, value] : env)
            if (key == k)
                return value;
        return std::string();
    };
    EXPECT_EQ(find("torch").substr(0, 2), "2.");
    EXPECT_EQ(find("device"), "cpu");
    EXPECT_EQ(find("worker"), "native");
}
