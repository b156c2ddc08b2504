#include "engine/scripted_model.h"

#include <torch/script.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace stepscope::engine
{
namespace
{
constexpr const char *kBatchPrefix = "stepscope_batch_"; // export.py's BATCH_PREFIX
} // namespace

struct ScriptedModel::Impl {
    torch::jit::Module module;
    std::vector<torch::Tensor> batch;
    std::vector<torch::jit::IValue> arguments;
};

ScriptedModel::ScriptedModel(const std::string &path, torch::Device device, bool channelsLast)
    : impl_(std::make_unique<Impl>())
{
    // The graph executor's optimizations (profiling runs, fusers, specialised re-compiles in the
    // first steps) would make this row something no user writes and move cost into the steady
    // steps; off, the traced graph runs op by op through the dispatcher, as eager LibTorch does, and
    // autocast applies to each op as it does there.
    torch::jit::setGraphExecutorOptimize(false);
    try {
        impl_->module = torch::jit::load(path, device);
    } catch (const c10::Error &e) {
        const std::string what = e.what();
        throw ModelLoadError("could not load the TorchScript export " + path + ": " + what.substr(0, what.find('\n')));
    }
    impl_->module.train();
    std::map<int, torch::Tensor> numbered;
    for (const auto &buffer : impl_->module.named_buffers(/*recurse=*/false)) {
        const std::string &name = buffer.name;
        if (name.rfind(kBatchPrefix, 0) == 0)
            numbered[std::stoi(name.substr(std::string(kBatchPrefix).size()))] = buffer.value;
    }
    if (numbered.size() < 2)
        throw ModelLoadError("the TorchScript export " + path +
                                 " holds no batch (stepscope_batch_N buffers): it was not made by Stepscope's export");
    torch::NoGradGuard noGrad;
    for (auto &[index, tensor] : numbered) {
        (void)index;
        torch::Tensor t = tensor.to(device);
        if (channelsLast && t.dim() == 4 && t.is_floating_point())
            t = t.contiguous(at::MemoryFormat::ChannelsLast);
        impl_->batch.push_back(t);
        impl_->arguments.emplace_back(t);
    }
    if (channelsLast)
        for (torch::Tensor p : impl_->module.parameters()) // a handle: set_data changes the module's own
            if (p.dim() == 4)
                p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast));
}

ScriptedModel::~ScriptedModel() = default;

torch::Tensor ScriptedModel::loss()
{
    return impl_->module.forward(impl_->arguments).toTensor();
}

std::vector<torch::Tensor> ScriptedModel::parameters() const
{
    // Each tensor once: a module lists a tied weight (GPT-2's embedding and its output layer) under
    // both names, and the optimizer would update it twice a step; Python's parameters() lists it once.
    std::vector<torch::Tensor> params;
    std::set<const void *> seen;
    for (const auto &p : impl_->module.parameters())
        if (p.requires_grad() && seen.insert(p.unsafeGetTensorImpl()).second)
            params.push_back(p);
    return params;
}

const std::vector<torch::Tensor> &ScriptedModel::batch() const
{
    return impl_->batch;
}

} // namespace stepscope::engine
