// stepscope-worker: runs ONE configuration in this process and speaks the JSON-lines protocol on
// stdout. The supervisor starts one per configuration (cold first steps, process-global flags).
//
//   stepscope-worker --config '{"device":"cuda","batch":32,...}'
#include "config/config_json.h"
#include "engine/cpu_affinity.h"
#include "engine/engine.h"
#include "protocol/protocol.h"

#include <atomic>
#include <csignal>
#include <cstdio>
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
    void ready(double s) override { emit(stepscope::protocol::readyLine(s)); }
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
    void check(const std::vector<double> &l) override { emit(stepscope::protocol::checkLine(l)); }
    void done(int steps, double meanWallMs) override { emit(stepscope::protocol::doneLine(steps, meanWallMs)); }
};

} // namespace

int main(int argc, char **argv)
{
    const auto processStart = stepscope::engine::Clock::now();
    using stepscope::Failure;
    using stepscope::FailureCategory;

    QByteArray configJson;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            configJson = argv[++i];
        else if (std::strcmp(argv[i], "--cuda-devices") == 0) {
            // Lets front-ends that link no torch pick a default device the way LibTorch sees it.
            std::printf("%d\n", stepscope::engine::cudaDeviceCount());
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
                "usage: stepscope-worker --config JSON | --cuda-devices | --probe DEVICE\nRuns one configuration; "
                "JSON lines on stdout.");
            return 0;
        }
    }
    stepscope::RunConfig config;
    std::vector<stepscope::ConfigError> errors;
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
    ProtocolListener listener;
    const auto failure = stepscope::engine::run(config, listener, g_cancel, processStart);
    if (failure) {
        emit(stepscope::protocol::errorLine(*failure));
        std::fprintf(stderr, "stepscope-worker: %s\n", failure->message.c_str());
        return failure->category == FailureCategory::Cancelled ? 130 : 1;
    }
    return 0;
}
