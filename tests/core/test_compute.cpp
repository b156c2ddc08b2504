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
    const ComputeFigures f = computeFigures(c, 3.57, "NVIDIA H200");
    const double flops = resnet18TrainingFlops(32, 224, 1000);
    EXPECT_DOUBLE_EQ(f.gflopPerStep, flops / 1e9);
    ASSERT_TRUE(f.tflops && f.peakShare);
    EXPECT_DOUBLE_EQ(*f.tflops, flops / 0.00357 / 1e12);
    EXPECT_DOUBLE_EQ(*f.peakShare, *f.tflops / 989.4);
    EXPECT_EQ(f.precision, ComputePrecision::Bf16);
    // No steady step: no rate; a CPU run has no GPU peak; an unknown GPU none either.
    EXPECT_FALSE(computeFigures(c, std::nullopt, "NVIDIA H200").tflops);
    RunConfig cpu = c;
    cpu.device = "cpu";
    EXPECT_TRUE(computeFigures(cpu, 40.0, "").tflops);
    EXPECT_FALSE(computeFigures(cpu, 40.0, "").peakShare);
    EXPECT_FALSE(computeFigures(c, 3.57, "Some GPU").peakShare);
}

} // namespace
} // namespace stepscope::report
