// stepscope-worker: runs ONE configuration in this process and speaks the JSON-lines protocol on
// stdout. The supervisor starts one per configuration (cold first steps, process-global flags).
//
//   stepscope-worker [--profile-steps K --trace PATH] [--memory-snapshot PATH] [--module EXPORT.pt]
//                    --config '{"device":"cuda",...}'
#include "config/config_json.h"
#include "config/resnet18_flops.h"
#include "engine/cpu_affinity.h"
#include "engine/engine.h"
#include "protocol/protocol.h"

#include <QFile>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace
{

std::atomic<bool> g_cancel{false};

void onSignal(int)
{
    g_cancel.store(true);
}

void emit(const QByteArray &line)
{
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout);
    std::fflush(stdout);
}

class ProtocolListener : public stepscope::engine::Listener
{
  public:
    ProtocolListener(const stepscope::RunConfig &config, std::string modulePath)
        : config_(config), modulePath_(std::move(modulePath))
    {
    }
    void ready(double s) override
    {
        // ResNet18's facts are its layer count; another model's are the `model` line the Python
        // worker counted when it exported it (PATH.model.json, export.py), sent as this run's.
        if (modulePath_.empty())
            emit(stepscope::protocol::modelLine(stepscope::resnet18Facts(config_)));
        else if (QFile facts(QString::fromStdString(modulePath_ + ".model.json")); facts.open(QIODevice::ReadOnly))
            emit(facts.readLine());
        emit(stepscope::protocol::readyLine(s));
    }
    void firstStep(double s) override { emit(stepscope::protocol::firstStepLine(s)); }
    void steps(int first, const std::vector<double> &gpu, const std::vector<double> &wall) override
    {
        emit(stepscope::protocol::stepsLine(first, gpu, wall));
    }
    void gpuState(const stepscope::engine::Environment &state) override
    {
        emit(stepscope::protocol::gpuStateLine(state));
    }
    void memory(std::int64_t a, std::int64_t r) override { emit(stepscope::protocol::memoryLine(a, r)); }
    void energy(const stepscope::EnergyReading &e) override { emit(stepscope::protocol::energyLine(e)); }
    void check(const std::vector<double> &l) override { emit(stepscope::protocol::checkLine(l)); }
    void phase(const std::string &name, double elapsed) override
    {
        emit(stepscope::protocol::phaseLine(name, elapsed));
    }
    void profile(const stepscope::engine::ProfileOutcome &p) override
    {
        emit(stepscope::protocol::profileLine(p.steps, p.wallMs, p.tracePath, p.profilerGflop, p.problem));
    }
    void memorySnapshot(const stepscope::engine::MemorySnapshotOutcome &m) override
    {
        emit(stepscope::protocol::memorySnapshotLine(m.outOfMemory ? stepscope::profile::SnapshotKind::OutOfMemory
                                                                   : stepscope::profile::SnapshotKind::Step,
                                                     m.path, m.problem));
    }
    void done(int steps, double meanWallMs) override { emit(stepscope::protocol::doneLine(steps, meanWallMs)); }

  private:
    const stepscope::RunConfig &config_;
    std::string modulePath_;
};

} // namespace

int main(int argc, char **argv)
{
    const auto processStart = stepscope::engine::Clock::now();
    using stepscope::Failure;
    using stepscope::FailureCategory;

    QByteArray configJson;
    stepscope::engine::ProfileRequest profile;
    std::string modulePath; // a model other than resnet18: its TorchScript export (issue 30.3)
    std::string argumentProblem;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            configJson = argv[++i];
        else if (std::strcmp(argv[i], "--profile-steps") == 0 && i + 1 < argc) {
            char *end = nullptr;
            const long steps = std::strtol(argv[++i], &end, 10);
            if (*end != '\0' || steps < 0 || steps > 10000)
                argumentProblem = std::string("--profile-steps: '") + argv[i] + "' is not a step count 0..10000";
            profile.steps = static_cast<int>(steps);
        } else if (std::strcmp(argv[i], "--trace") == 0 && i + 1 < argc)
            profile.tracePath = argv[++i];
        else if (std::strcmp(argv[i], "--memory-snapshot") == 0 && i + 1 < argc)
            profile.memorySnapshotPath = argv[++i];
        else if (std::strcmp(argv[i], "--module") == 0 && i + 1 < argc)
            modulePath = argv[++i];
        else if (std::strcmp(argv[i], "--cuda-devices") == 0) {
            // Lets front-ends that link no torch pick a default device the way LibTorch sees it.
            // The count, then one tab-separated line per device (index, name, UUID, PCI bus id, MiB)
            // for a sweep over several GPUs; readers of the first line alone still work.
            const auto devices = stepscope::engine::cudaDevices();
            std::printf("%d\n", static_cast<int>(devices.size()));
            for (const auto &d : devices)
                std::printf("%d\t%s\t%s\t%s\t%lld\n", d.index, d.name.c_str(), d.uuid.c_str(), d.pciBusId.c_str(),
                            d.memoryMib);
            return 0;
        } else if (std::strcmp(argv[i], "--probe") == 0 && i + 1 < argc) {
            // `doctor` asks for the machine as a run would see it (driver, clocks, throttling)
            // without running a step.
            stepscope::RunConfig probeConfig;
            probeConfig.device = argv[++i];
            emit(stepscope::protocol::helloLine(stepscope::engine::probeEnvironment(probeConfig)));
            return 0;
        } else if (std::strcmp(argv[i], "--help") == 0) {
            std::puts(
                "usage: stepscope-worker [--profile-steps K --trace PATH] [--memory-snapshot PATH] [--module EXPORT.pt] "
                "--config JSON | --cuda-devices | --probe DEVICE\nRuns one configuration; JSON lines on stdout. With "
                "--profile-steps, K more steps after the timed ones run under the profiler and their Chrome trace goes "
                "to PATH. With --memory-snapshot, a CUDA run records one step's allocator history before that (or its "
                "state when it fails out of memory) as the pickle pytorch.org/memory_viz opens. A "
                "model other than resnet18 comes as the TorchScript module stepscope_worker.py --export-torchscript "
                "wrote (--module).");
            return 0;
        }
    }
    stepscope::RunConfig config;
    std::vector<stepscope::ConfigError> errors;
    if (!argumentProblem.empty())
        errors.push_back({"arguments", argumentProblem});
    if (profile.steps > 0 && profile.tracePath.empty())
        errors.push_back({"arguments", "--profile-steps needs --trace PATH"});
    if (configJson.isEmpty())
        errors.push_back({"config", "missing --config JSON"});
    if (errors.empty())
        stepscope::parseConfig(configJson, config, errors);
    if (errors.empty() && config.runtime != stepscope::Runtime::Native)
        errors.push_back({"runtime", "this is the native worker; runtime python runs in the Python worker"});
    if (errors.empty()) {
        // First, before anything starts CUDA or torch's thread pools: their threads inherit the mask.
        const std::string problem = stepscope::engine::applyCpuAffinity(config);
        if (!problem.empty())
            errors.push_back({"cpu_affinity", problem});
    }
    if (!errors.empty()) {
        emit(stepscope::protocol::errorLine(Failure{FailureCategory::InvalidConfig,
                                                    errors.front().field + ": " + errors.front().message,
                                                    stepscope::describe(errors)}));
        return 2;
    }

    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);

    stepscope::engine::applyThreads(config); // before hello, which reports the count
    emit(stepscope::protocol::helloLine(stepscope::engine::probeEnvironment(config)));
    ProtocolListener listener(config, modulePath);
    const auto failure = stepscope::engine::run(config, listener, g_cancel, processStart, profile, modulePath);
    if (failure) {
        emit(stepscope::protocol::errorLine(*failure));
        std::fprintf(stderr, "stepscope-worker: %s\n", failure->message.c_str());
        return failure->category == FailureCategory::Cancelled ? 130 : 1;
    }
    return 0;
}
