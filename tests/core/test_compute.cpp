// What a training step computes (issue 18.4): ResNet18's FLOPs counted from its layers against
// independent counts, the precision a configuration is held to, the peak table, and the figures a
// ledger row gets.
#include "report/compute.h"

#include <gtest/gtest.h>

#include <vector>

namespace stepscope::report
{
namespace
{

// torchvision's model table gives ResNet18 1.81 GFLOPS at 224x224 with 1000 classes, counting a
// multiply-add as one: 1.814e9 multiply-adds.
TEST(Compute, ForwardFlopsAt224MatchTorchvisionsPublishedCount)
{
    const double macs = resnet18ForwardFlops(224, 1000) / 2;
    EXPECT_NEAR(macs, 1.814e9, 0.005e9);
}

// At 32x32 the sides are 16 after the stem, 8 after the pool, then 8, 4, 2, 1 by stage: the layers
// written out one by one (kernel, in, out, output side), not by the loop the code uses.
TEST(Compute, ForwardFlopsAt32MatchALayerByLayerCount)
{
    struct Conv {
        int k, cin, cout, side;
    };
    const std::vector<Conv> layers = {
        {7, 3, 64, 16},                                                                           // stem
        {3, 64, 64, 8},   {3, 64, 64, 8},   {3, 64, 64, 8},   {3, 64, 64, 8},                     // stage 1
        {3, 64, 128, 4},  {3, 128, 128, 4}, {1, 64, 128, 4},  {3, 128, 128, 4}, {3, 128, 128, 4}, // stage 2
        {3, 128, 256, 2}, {3, 256, 256, 2}, {1, 128, 256, 2}, {3, 256, 256, 2}, {3, 256, 256, 2}, // stage 3
        {3, 256, 512, 1}, {3, 512, 512, 1}, {1, 256, 512, 1}, {3, 512, 512, 1}, {3, 512, 512, 1}, // stage 4
    };
    double flops = 2.0 * 512 * 10; // the classifier, 10 classes
    for (const Conv &c : layers)
        flops += 2.0 * c.k * c.k * c.cin * c.cout * c.side * c.side;
    EXPECT_DOUBLE_EQ(resnet18ForwardFlops(32, 10), flops);
}

TEST(Compute, ATrainingStepIsThreeForwardsLessTheStemsInputGradient)
{
    const double forward = resnet18ForwardFlops(224, 1000);
    const double stemInput = 2.0 * 7 * 7 * 3 * 64 * 112 * 112;
    EXPECT_DOUBLE_EQ(resnet18TrainingFlops(32, 224, 1000), 32 * (3 * forward - stemInput));
    // The stem's input gradient is a small part: the step stays within 3% of three forwards.
    EXPECT_LT(resnet18TrainingFlops(1, 224, 1000), 3 * forward);
    EXPECT_GT(resnet18TrainingFlops(1, 224, 1000), 0.97 * 3 * forward);
}

TEST(Compute, PrecisionAndPeakOfTheConfiguration)
{
    RunConfig c;
    EXPECT_EQ(computePrecision(c), ComputePrecision::Fp32);
    c.tf32 = true;
    EXPECT_EQ(computePrecision(c), ComputePrecision::Tf32);
    c.autocast = Autocast::BF16;
    EXPECT_EQ(computePrecision(c), ComputePrecision::Bf16) << "autocast decides over TF32";
    EXPECT_EQ(densePeakTflops("NVIDIA H200", ComputePrecision::Bf16), std::optional<double>(989.4));
    EXPECT_EQ(densePeakTflops("NVIDIA H200", ComputePrecision::Fp32), std::optional<double>(67.0));
    EXPECT_EQ(densePeakTflops("NVIDIA A100-SXM4-80GB", ComputePrecision::Tf32), std::optional<double>(156.0));
    EXPECT_FALSE(densePeakTflops("NVIDIA H1000", ComputePrecision::Bf16)) << "a model is a whole word";
    EXPECT_FALSE(densePeakTflops("Some GPU", ComputePrecision::Bf16));
    EXPECT_FALSE(densePeakTflops("", ComputePrecision::Bf16));
}

TEST(Compute, FiguresOfASteadyStep)
{
    RunConfig c;
    c.device = "cuda";
    c.batch = 32;
    c.tf32 = true;
    c.autocast = Autocast::BF16;
    const ComputeFigures f = computeFigures(c, {}, 3.57, "NVIDIA H200");
    const double flops = resnet18TrainingFlops(32, 224, 1000);
    ASSERT_TRUE(f.gflopPerStep);
    EXPECT_DOUBLE_EQ(*f.gflopPerStep, flops / 1e9);
    EXPECT_EQ(f.source, FlopsSource::ResNet18Layers) << "a run stored without facts: ResNet18's layers";
    ASSERT_TRUE(f.tflops && f.peakShare);
    EXPECT_DOUBLE_EQ(*f.tflops, flops / 0.00357 / 1e12);
    EXPECT_DOUBLE_EQ(*f.peakShare, *f.tflops / 989.4);
    EXPECT_EQ(f.precision, ComputePrecision::Bf16);
    // No steady step: no rate; a CPU run has no GPU peak; an unknown GPU none either.
    EXPECT_FALSE(computeFigures(c, {}, std::nullopt, "NVIDIA H200").tflops);
    RunConfig cpu = c;
    cpu.device = "cpu";
    EXPECT_TRUE(computeFigures(cpu, {}, 40.0, "").tflops);
    EXPECT_FALSE(computeFigures(cpu, {}, 40.0, "").peakShare);
    EXPECT_FALSE(computeFigures(c, {}, 3.57, "Some GPU").peakShare);
}

// Issue 30.4: a run's stored count is the step's FLOPs, whatever its model; another model without a
// count has no figures at all, never ResNet18's in its place.
TEST(Compute, StoredFlopsOfAnyModel)
{
    RunConfig c;
    c.device = "cuda";
    c.model = "timm:vit_tiny_patch16_224";
    ModelFacts facts;
    facts.trainingFlops = 2.5e12;
    facts.flopsSource = FlopsSource::FlopCounter;
    const ComputeFigures f = computeFigures(c, facts, 10.0, "NVIDIA H100 80GB HBM3");
    ASSERT_TRUE(f.gflopPerStep && f.tflops && f.peakShare);
    EXPECT_DOUBLE_EQ(*f.gflopPerStep, 2500.0);
    EXPECT_DOUBLE_EQ(*f.tflops, 250.0) << "2.5 TFLOP in 10 ms";
    EXPECT_DOUBLE_EQ(*f.peakShare, 250.0 / 67.0) << "fp32 on an H100";
    EXPECT_EQ(f.source, FlopsSource::FlopCounter);
    EXPECT_EQ(tflopsText(f), "250.0 TFLOP/s (373.1% of the fp32 dense peak)");

    facts.trainingFlops.reset();
    facts.flopsProblem = "the model cannot run on the meta device";
    const ComputeFigures none = computeFigures(c, facts, 10.0, "NVIDIA H100 80GB HBM3");
    EXPECT_FALSE(none.gflopPerStep);
    EXPECT_FALSE(none.tflops);
    EXPECT_EQ(none.source, FlopsSource::None);
    EXPECT_EQ(tflopsText(none), "");

    // ResNet18 with a stored count takes the count, and says so.
    RunConfig r;
    ModelFacts counted;
    counted.trainingFlops = 1e9;
    counted.flopsSource = FlopsSource::FlopCounter;
    EXPECT_EQ(computeFigures(r, counted, 1.0, "").source, FlopsSource::FlopCounter);
    EXPECT_DOUBLE_EQ(*computeFigures(r, counted, 1.0, "").tflops, 1.0);
}

// The figure tests/python/test_models.py holds torch.utils.flop_counter's count of torchvision's
// resnet18 to (batch 2, 32 px, 10 classes): the layer count and the counter must agree within 2%,
// and each side is pinned to this number by its own test.
TEST(Compute, LayerCountOfTheSmallShapeTheCounterIsCheckedAgainst)
{
    constexpr double kCounterFigure = 434565120.0; // FlopCounterMode's total, forward + backward
    EXPECT_NEAR(resnet18TrainingFlops(2, 32, 10), kCounterFigure, 0.02 * kCounterFigure);
    EXPECT_EQ(resnet18Parameters(1000), 11689512);
    EXPECT_EQ(resnet18Parameters(10), 11181642);
    RunConfig c;
    c.batch = 2;
    c.imageSize = 32;
    c.classes = 10;
    const ModelFacts facts = resnet18Facts(c);
    EXPECT_EQ(facts.description, "resnet18 (11.2 M parameters, images 3x32x32, 10 classes)");
    EXPECT_EQ(facts.trainingFlops, std::optional<double>(resnet18TrainingFlops(2, 32, 10)));
    EXPECT_EQ(facts.flopsSource, FlopsSource::ResNet18Layers);
}

TEST(Compute, SmallFiguresKeepTheirDigits)
{
    EXPECT_EQ(flopFigureText(340.7), "340.7");
    EXPECT_EQ(flopFigureText(12.04), "12.0");
    EXPECT_EQ(flopFigureText(0.000421), "0.000421");
    EXPECT_EQ(flopFigureText(0), "0.0");
}

} // namespace
} // namespace stepscope::report
