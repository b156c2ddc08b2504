#include "engine/training_step.h"

#include "config/model_name.h"

#include <ATen/autocast_mode.h>
#include <torch/nn/functional/loss.h>

#ifdef STEPSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#endif

#include <stdexcept>

namespace stepscope::engine
{
namespace
{

// Switches autocast on for one device type for the lifetime of the guard, as torch.autocast does.
class AutocastGuard
{
  public:
    AutocastGuard(const RunConfig &config, torch::Device device)
        : type_(device.type()), active_(config.autocast != Autocast::Off)
    {
        if (!active_)
            return;
        previousEnabled_ = at::autocast::is_autocast_enabled(type_);
        previousDtype_ = at::autocast::get_autocast_dtype(type_);
        at::autocast::set_autocast_enabled(type_, true);
        at::autocast::set_autocast_dtype(type_, config.autocast == Autocast::FP16 ? at::kHalf : at::kBFloat16);
        at::autocast::increment_nesting();
    }
    ~AutocastGuard()
    {
        if (!active_)
            return;
        // Leaving the outermost region drops the cached low-precision copies of the weights:
        // they are stale after the optimizer step.
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        at::autocast::set_autocast_enabled(type_, previousEnabled_);
        at::autocast::set_autocast_dtype(type_, previousDtype_);
    }

  private:
    at::DeviceType type_;
    bool active_;
    bool previousEnabled_ = false;
    at::ScalarType previousDtype_ = at::kFloat;
};

} // namespace

TrainingStep::TrainingStep(const RunConfig &config, torch::Device device, const std::string &modulePath)
    : config_(config), device_(device)
{
    // Weights and data come from the CPU generator, so every device and runtime starts from the
    // same numbers for the same seed. An export carries both, made from the same seed by the Python
    // worker; the seed is still set, for what draws at run time (dropout).
    torch::manual_seed(static_cast<uint64_t>(config.seed));
    if (config.model != kDefaultModel) {
        if (modulePath.empty())
            throw std::invalid_argument("model " + config.model +
                                        " needs its TorchScript export (--module PATH); the supervisor makes it "
                                        "with the Python worker before the run");
        scripted_ = std::make_unique<ScriptedModel>(modulePath, device_, config.channelsLast);
        params_ = scripted_->parameters();
    } else {
        model_ = ResNet18(config.classes);
        auto input = torch::randn({config.batch, 3, config.imageSize, config.imageSize});
        auto target = torch::randint(0, config.classes, {config.batch}, torch::kLong);

        model_->to(device_);
        model_->train();
        input_ = input.to(device_);
        target_ = target.to(device_);
        if (config.channelsLast) {
            torch::NoGradGuard noGrad;
            input_ = input_.contiguous(at::MemoryFormat::ChannelsLast);
            for (auto &p : model_->parameters())
                if (p.dim() == 4)
                    p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast));
        }
        params_ = model_->parameters();
    }
    // Zero momentum buffers give exactly PyTorch's first step (buf = grad) without a special case,
    // and exist before a CUDA graph is captured.
    for (const auto &p : params_)
        momentum_.push_back(torch::zeros_like(p));
    if (config.autocast == Autocast::FP16) {
        auto opts = torch::TensorOptions().device(device_);
        scale_ = torch::full({1}, 65536.0, opts.dtype(torch::kFloat));
        growthTracker_ = torch::zeros({1}, opts.dtype(torch::kInt));
        foundInf_ = torch::zeros({1}, opts.dtype(torch::kFloat));
    }
}

TrainingStep::~TrainingStep() = default;

torch::Tensor TrainingStep::forward()
{
    if (scripted_)
        throw std::logic_error("forward() is ResNet18's; a TorchScript export gives its loss only");
    AutocastGuard autocast(config_, device_);
    return model_->forward(input_);
}

void TrainingStep::zeroGrads()
{
    if (!config_.cudaGraph) {
        // set_to_none, PyTorch's default: no kernel at all, backward writes fresh gradients.
        for (auto &p : params_)
            p.mutable_grad() = torch::Tensor();
        return;
    }
    // Warm-up before a capture keeps its gradients and zeroes them in place; at capture they are
    // None (captureGraph), so nothing is zeroed inside the graph.
    std::vector<torch::Tensor> grads;
    for (auto &p : params_)
        if (p.grad().defined())
            grads.push_back(p.grad());
    if (!grads.empty())
        at::_foreach_zero_(grads);
}

void TrainingStep::optimizerStep(double lr, const std::optional<torch::Tensor> &foundInf)
{
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> grads;
    grads.reserve(params_.size());
    for (auto &p : params_)
        grads.push_back(p.grad());

    switch (config_.optimizer) {
    case Optimizer::Fused:
        // The fused kernel skips the update on the device when found_inf is set: no host sync.
        at::_fused_sgd_(params_, grads, momentum_, /*weight_decay=*/0.0, kMomentum, lr, /*dampening=*/0.0,
                        /*nesterov=*/false, /*maximize=*/false, /*is_first_step=*/false, std::nullopt, foundInf);
        return;
    case Optimizer::Foreach:
    case Optimizer::PerParameter:
        // GradScaler reads found_inf on the host for non-fused optimizers; so does this.
        if (foundInf && foundInf->item<float>() != 0.0f)
            return;
        if (config_.optimizer == Optimizer::Foreach) {
            at::_foreach_mul_(momentum_, kMomentum);
            at::_foreach_add_(momentum_, grads);
            at::_foreach_add_(params_, momentum_, -lr);
        } else {
            for (std::size_t i = 0; i < params_.size(); ++i) {
                momentum_[i].mul_(kMomentum).add_(grads[i]);
                params_[i].add_(momentum_[i], -lr);
            }
        }
        return;
    }
}

void TrainingStep::eagerStep(double lr)
{
    zeroGrads();
    {
        AutocastGuard autocast(config_, device_);
        loss_ = scripted_ ? scripted_->loss() : torch::nn::functional::cross_entropy(model_->forward(input_), target_);
    }
    if (config_.autocast != Autocast::FP16) {
        loss_.backward();
        optimizerStep(lr, std::nullopt);
        return;
    }
    // Dynamic loss scaling, as torch.amp.GradScaler does it with ATen's kernels.
    (loss_ * scale_).backward();
    foundInf_.zero_();
    std::vector<torch::Tensor> grads;
    for (auto &p : params_)
        grads.push_back(p.grad());
    at::_amp_foreach_non_finite_check_and_unscale_(grads, foundInf_, scale_.reciprocal());
    optimizerStep(lr, foundInf_);
    at::_amp_update_scale_(scale_, growthTracker_, foundInf_, 2.0, 0.5, 2000);
}

void TrainingStep::captureGraph()
{
#ifdef STEPSCOPE_WITH_CUDA
    // Warm-up on a side stream, as capture requires: lazy initialisation (cuBLAS handles,
    // workspaces, gradient buffers) must happen before capture. lr = 0 leaves the weights alone,
    // and the momentum touched by the warm-up is reset, so training starts where eager starts.
    at::autocast::set_autocast_cache_enabled(false);
    auto side = c10::cuda::getStreamFromPool(false, device_.index());
    torch::cuda::synchronize(device_.index());
    {
        c10::cuda::CUDAStreamGuard guard(side);
        for (int i = 0; i < 3; ++i)
            eagerStep(0.0);
    }
    torch::cuda::synchronize(device_.index());
    {
        torch::NoGradGuard noGrad;
        // Gradients set to None before capture, as PyTorch's whole-network recipe does: backward
        // inside the capture then writes fresh gradients from the graph's private pool (fixed
        // addresses on every replay) instead of zeroing and accumulating into old ones, which
        // would add a zero and an add kernel per parameter to every replayed step.
        for (auto &p : params_)
            p.mutable_grad() = torch::Tensor();
        for (auto &m : momentum_)
            m.zero_();
        if (scale_.defined()) {
            scale_.fill_(65536.0);
            growthTracker_.zero_();
        }
    }
    graph_ = std::make_unique<at::cuda::CUDAGraph>();
    {
        c10::cuda::CUDAStreamGuard guard(side);
        graph_->capture_begin();
        eagerStep(kLearningRate);
        graph_->capture_end();
    }
    torch::cuda::synchronize(device_.index());
#else
    throw std::runtime_error("this build of the engine has no CUDA support");
#endif
}

void TrainingStep::step()
{
    if (!config_.cudaGraph) {
        eagerStep(kLearningRate);
        return;
    }
#ifdef STEPSCOPE_WITH_CUDA
    if (!graph_)
        captureGraph();
    graph_->replay();
#endif
}

} // namespace stepscope::engine
