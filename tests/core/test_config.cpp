#include "config/config_json.h"
#include "config/config_schema.h"
#include "config/presets.h"
#include "config/run_config.h"
#include "config/sweep_baseline.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace stepscope
{
namespace
{

RunConfig cudaConfig()
{
    RunConfig c;
    c.device = "cuda";
    return c;
}

// The errors of `c` that name `field`.
std::vector<ConfigError> errorsFor(const RunConfig &c, const std::string &field)
{
    std::vector<ConfigError> out;
    for (const auto &e : validate(c))
        if (e.field == field)
            out.push_back(e);
    return out;
}

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> labels(const Sweep &s)
{
    std::vector<std::string> out;
    for (const auto &c : s.configs)
        out.push_back(knobLabel(c));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

TEST(ConfigValidate, DefaultsAreValidOnCpuAndCuda)
{
    EXPECT_TRUE(validate(RunConfig{}).empty()) << describe(validate(RunConfig{}));
    EXPECT_TRUE(validate(cudaConfig()).empty()) << describe(validate(cudaConfig()));
    RunConfig c = cudaConfig();
    c.device = "cuda:3";
    EXPECT_TRUE(validate(c).empty());
    EXPECT_EQ(c.cudaIndex(), 3);
    EXPECT_EQ(cudaConfig().cudaIndex(), 0);
}

TEST(ConfigValidate, BatchZeroRejectedBySetFieldAndValidate)
{
    RunConfig c;
    ConfigError error;
    EXPECT_FALSE(setField(c, "batch", "0", error));
    EXPECT_EQ(error.field, "batch");
    EXPECT_TRUE(contains(error.message, "1 to 4096")) << error.message;
    EXPECT_EQ(c.batch, 32) << "a refused value must leave the field alone";

    for (const char *bad : {"-1", "4097", "", "12abc", "1.5", "99999999999999999999"}) {
        ConfigError e;
        EXPECT_FALSE(setField(c, "batch", bad, e)) << bad;
        EXPECT_EQ(e.field, "batch");
    }

    c.batch = 0;
    const auto errors = errorsFor(c, "batch");
    ASSERT_EQ(errors.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(errors[0].message, "got 0")) << errors[0].message;
}

TEST(ConfigValidate, ImageSizeTooSmallForResNet18)
{
    RunConfig c;
    ConfigError error;
    EXPECT_FALSE(setField(c, "image_size", "16", error));
    EXPECT_EQ(error.field, "image_size");
    EXPECT_TRUE(contains(error.message, "32")) << error.message;

    c.imageSize = 16;
    const auto errors = errorsFor(c, "image_size");
    ASSERT_EQ(errors.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(errors[0].message, "32 to 1024")) << errors[0].message;
    EXPECT_TRUE(contains(errors[0].message, "ResNet18")) << errors[0].message;

    c.imageSize = 32;
    EXPECT_TRUE(errorsFor(c, "image_size").empty());
}

TEST(ConfigValidate, CudaOnlyKnobsRefusedOnCpu)
{
    struct Case {
        void (*apply)(RunConfig &);
        const char *field;
        const char *mentions;
    };
    const Case cases[] = {
        {[](RunConfig &c) { c.cudaGraph = true; }, "cuda_graph", "CUDA"},
        {[](RunConfig &c) { c.autocast = Autocast::FP16; }, "autocast", "bf16"},
        {[](RunConfig &c) { c.tf32 = true; }, "tf32", "CUDA"},
        {[](RunConfig &c) { c.cudnnBenchmark = true; }, "cudnn_benchmark", "CUDA"},
    };
    for (const auto &k : cases) {
        RunConfig cpu;
        k.apply(cpu);
        const auto errors = validate(cpu);
        ASSERT_EQ(errors.size(), 1u) << k.field << ": " << describe(errors);
        EXPECT_EQ(errors[0].field, k.field);
        EXPECT_TRUE(contains(errors[0].message, k.mentions)) << errors[0].message;

        RunConfig gpu = cudaConfig();
        k.apply(gpu);
        EXPECT_TRUE(validate(gpu).empty()) << k.field << " on cuda: " << describe(validate(gpu));
    }
    // bf16 is the CPU's mixed precision.
    RunConfig bf16;
    bf16.autocast = Autocast::BF16;
    EXPECT_TRUE(validate(bf16).empty());
}

// The words of every refusal are cases of tests/data/invalid_configs.json (ConfigInvalidCases); here,
// that a refused value leaves the configuration as it was.
TEST(ConfigValidate, RefusedValuesLeaveTheConfigurationAlone)
{
    RunConfig c;
    ConfigError error;
    const std::pair<const char *, const char *> refused[] = {
        {"batchsize", "32"},      {"autocast", "fp8"},          {"device", "gpu"},
        {"tf32", "maybe"},        {"optimizer", "adam"},        {"seed", "-5"},
        {"compile", "turbo"},     {"compile_backend", "eager"}, {"compile_target", "optimizer"},
        {"compile_cache", "hot"}, {"cpu_affinity", "all"},
    };
    for (const auto &[key, value] : refused) {
        EXPECT_FALSE(setField(c, key, value, error)) << key;
        EXPECT_EQ(error.field, key);
    }
    EXPECT_TRUE(c == RunConfig{}) << "refused values leave the configuration alone";
}

TEST(ConfigValidate, SetFieldAcceptsEveryDocumentedValue)
{
    RunConfig c;
    ConfigError error;
    EXPECT_TRUE(setField(c, "runtime", "python", error));
    EXPECT_EQ(c.runtime, Runtime::Python);
    EXPECT_TRUE(setField(c, "device", "cuda:1", error));
    EXPECT_EQ(c.device, "cuda:1");
    for (const char *t : {"true", "1", "on", "yes"}) {
        c.tf32 = false;
        EXPECT_TRUE(setField(c, "tf32", t, error)) << t;
        EXPECT_TRUE(c.tf32) << t;
    }
    EXPECT_TRUE(setField(c, "cudnn_benchmark", "true", error));
    EXPECT_TRUE(setField(c, "autocast", "fp16", error));
    EXPECT_TRUE(setField(c, "channels_last", "yes", error));
    EXPECT_TRUE(setField(c, "cuda_graph", "on", error));
    EXPECT_TRUE(setField(c, "optimizer", "fused", error));
    EXPECT_TRUE(setField(c, "compile", "max-autotune", error));
    EXPECT_TRUE(setField(c, "compile_backend", "aot_eager", error));
    EXPECT_TRUE(setField(c, "compile_target", "step", error));
    // compile_cache left the table for the run's start state: asked for, it says so by name.
    EXPECT_FALSE(setField(c, "compile_cache", "warm", error));
    EXPECT_EQ(error.field, "compile_cache");
    EXPECT_NE(error.message.find("--start"), std::string::npos) << error.message;
    EXPECT_TRUE(setField(c, "batch", "4096", error));
    EXPECT_TRUE(setField(c, "image_size", "1024", error));
    EXPECT_TRUE(setField(c, "classes", "10", error));
    EXPECT_TRUE(setField(c, "warmup_steps", "0", error));
    EXPECT_TRUE(setField(c, "steps", "7", error));
    EXPECT_TRUE(setField(c, "seed", "9007199254740993", error));
    EXPECT_TRUE(c.cudnnBenchmark && c.channelsLast && c.cudaGraph);
    EXPECT_EQ(c.autocast, Autocast::FP16);
    EXPECT_EQ(c.optimizer, Optimizer::Fused);
    EXPECT_EQ(c.compile, CompileMode::MaxAutotune);
    EXPECT_EQ(c.compileBackend, CompileBackend::AotEager);
    EXPECT_EQ(c.compileTarget, CompileTarget::Step);
    EXPECT_TRUE(setField(c, "compile", "max-autotune-no-cudagraphs", error));
    EXPECT_EQ(c.compile, CompileMode::MaxAutotuneNoCudagraphs);
    EXPECT_TRUE(setField(c, "compile_backend", "cudagraphs", error));
    EXPECT_EQ(c.compileBackend, CompileBackend::CudaGraphs);
    EXPECT_TRUE(setField(c, "compile_backend", "inductor", error));
    EXPECT_EQ(c.compileBackend, CompileBackend::Inductor);
    EXPECT_TRUE(setField(c, "compile_target", "model", error));
    EXPECT_EQ(c.compileTarget, CompileTarget::Model);
    EXPECT_EQ(c.batch, 4096);
    EXPECT_EQ(c.imageSize, 1024);
    EXPECT_EQ(c.classes, 10);
    EXPECT_EQ(c.warmupSteps, 0);
    EXPECT_EQ(c.steps, 7);
    EXPECT_EQ(c.seed, 9007199254740993ull);
    EXPECT_EQ(c.totalSteps(), 8);
}

TEST(ConfigValidate, CompileNeedsPythonRuntime)
{
    RunConfig c = cudaConfig();
    c.compile = CompileMode::Default;
    const auto errors = errorsFor(c, "compile");
    ASSERT_EQ(errors.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(errors[0].message, "python")) << errors[0].message;
    c.runtime = Runtime::Python;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));

    // A compiled model inside the whole-step graph (issue 18.6) is valid with a mode that captures
    // no graphs of its own; reduce-overhead does, and a compiled whole step cannot be captured.
    c.cudaGraph = true;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.compile = CompileMode::ReduceOverhead;
    const auto both = errorsFor(c, "cuda_graph");
    ASSERT_EQ(both.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(both[0].message, "captures CUDA graphs of its own")) << both[0].message;
    c.compile = CompileMode::MaxAutotuneNoCudagraphs;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.compileTarget = CompileTarget::Step;
    ASSERT_EQ(errorsFor(c, "cuda_graph").size(), 1u) << describe(validate(c));
}

// A python CUDA configuration with a compile mode, otherwise the defaults.
RunConfig compiled(CompileMode mode, const std::string &device = "cuda")
{
    RunConfig c;
    c.device = device;
    c.runtime = Runtime::Python;
    c.compile = mode;
    return c;
}

TEST(ConfigValidate, CompileSettingsHaveFieldsRightAfterCompile)
{
    std::vector<std::string> keys;
    for (const auto &f : fields())
        keys.emplace_back(f.key);
    const auto at = std::find(keys.begin(), keys.end(), "compile");
    ASSERT_NE(at, keys.end());
    ASSERT_GE(keys.end() - at, 3);
    EXPECT_EQ(*(at + 1), "compile_backend");
    EXPECT_EQ(*(at + 2), "compile_target");
    EXPECT_EQ(std::find(keys.begin(), keys.end(), "compile_cache"), keys.end()) << "the run's start state now";
    for (const auto &f : fields()) {
        EXPECT_FALSE(std::string(f.help).empty()) << f.key;
        if (std::string(f.key) == "compile") {
            EXPECT_TRUE(contains(f.allowed, "max-autotune-no-cudagraphs")) << f.allowed;
        } else if (std::string(f.key) == "compile_backend") {
            EXPECT_EQ(std::string(f.allowed), "inductor|cudagraphs|aot_eager");
            EXPECT_TRUE(contains(f.help, "debugging")) << f.help;
        } else if (std::string(f.key) == "compile_target") {
            EXPECT_EQ(std::string(f.allowed), "model|step");
        } else if (std::string(f.key) == "compile_cache") {
            EXPECT_EQ(std::string(f.allowed), "cold|warm");
        }
    }
}

TEST(ConfigValidate, CompileSettingsNeedACompileMode)
{
    struct Case {
        void (*apply)(RunConfig &);
        const char *field;
    };
    const Case cases[] = {
        {[](RunConfig &c) { c.compileBackend = CompileBackend::AotEager; }, "compile_backend"},
        {[](RunConfig &c) { c.compileBackend = CompileBackend::CudaGraphs; }, "compile_backend"},
        {[](RunConfig &c) { c.compileTarget = CompileTarget::Step; }, "compile_target"},
    };
    for (const auto &k : cases) {
        RunConfig c = compiled(CompileMode::None);
        k.apply(c);
        const auto errors = validate(c);
        ASSERT_EQ(errors.size(), 1u) << k.field << ": " << describe(errors);
        EXPECT_EQ(errors[0].field, k.field);
        EXPECT_TRUE(contains(errors[0].message, "applies only with a compile mode")) << errors[0].message;

        c.compile = CompileMode::Default;
        EXPECT_TRUE(validate(c).empty()) << k.field << ": " << describe(validate(c));
    }
}

TEST(ConfigValidate, CompileBackendRules)
{
    // cudagraphs is a CUDA backend.
    RunConfig c = compiled(CompileMode::Default, "cpu");
    c.compileBackend = CompileBackend::CudaGraphs;
    auto errors = errorsFor(c, "compile_backend");
    ASSERT_EQ(errors.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(errors[0].message, "CUDA")) << errors[0].message;
    c.device = "cuda:1";
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));

    // Modes are inductor's: another backend takes mode default, and the message says how.
    c.compileBackend = CompileBackend::AotEager;
    for (CompileMode m :
         {CompileMode::ReduceOverhead, CompileMode::MaxAutotune, CompileMode::MaxAutotuneNoCudagraphs}) {
        c.compile = m;
        errors = errorsFor(c, "compile");
        ASSERT_EQ(errors.size(), 1u) << toString(m) << ": " << describe(validate(c));
        EXPECT_TRUE(contains(errors[0].message, "mode " + toString(m) + " is an inductor mode")) << errors[0].message;
        EXPECT_TRUE(contains(errors[0].message, "use compile default with backend aot_eager")) << errors[0].message;
    }
    c.compile = CompileMode::Default;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    // aot_eager also runs on the CPU.
    c.device = "cpu";
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
}

TEST(ConfigValidate, CpuCompileModesWithoutCudaGraphs)
{
    for (CompileMode m : {CompileMode::ReduceOverhead, CompileMode::MaxAutotune}) {
        const RunConfig c = compiled(m, "cpu");
        const auto errors = validate(c);
        ASSERT_EQ(errors.size(), 1u) << toString(m) << ": " << describe(errors);
        EXPECT_EQ(errors[0].field, "compile");
        EXPECT_TRUE(contains(errors[0].message, "uses CUDA graphs")) << errors[0].message;
        EXPECT_TRUE(contains(errors[0].message, "default or max-autotune-no-cudagraphs")) << errors[0].message;
        EXPECT_TRUE(validate(compiled(m)).empty()) << toString(m) << " on cuda: " << describe(validate(compiled(m)));
    }
    for (CompileMode m : {CompileMode::Default, CompileMode::MaxAutotuneNoCudagraphs}) {
        RunConfig c = compiled(m, "cpu");
        c.compileTarget = CompileTarget::Step;
        EXPECT_TRUE(validate(c).empty()) << toString(m) << ": " << describe(validate(c));
    }
}

TEST(ConfigValidate, Fp16UnderCudaGraphNeedsFusedOptimizer)
{
    RunConfig c = cudaConfig();
    c.autocast = Autocast::FP16;
    c.cudaGraph = true;
    for (Optimizer o : {Optimizer::Foreach, Optimizer::PerParameter}) {
        c.optimizer = o;
        const auto errors = validate(c);
        ASSERT_EQ(errors.size(), 1u) << describe(errors);
        EXPECT_EQ(errors[0].field, "optimizer");
        EXPECT_TRUE(contains(errors[0].message, "fused")) << errors[0].message;
    }
    c.optimizer = Optimizer::Fused;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    // bf16 needs no loss scaling, so any optimizer goes under a graph.
    c.autocast = Autocast::BF16;
    c.optimizer = Optimizer::Foreach;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
}

TEST(ConfigValidate, BatchOneNeedsMoreThanOneValuePerChannel)
{
    RunConfig c;
    c.batch = 1;
    c.imageSize = 32; // ResNet18 ends at 1x1: one value per channel for the last batch norm
    const auto errors = errorsFor(c, "batch");
    ASSERT_EQ(errors.size(), 1u) << describe(validate(c));
    EXPECT_TRUE(contains(errors[0].message, "batch norm")) << errors[0].message;

    c.batch = 2;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.batch = 1;
    c.imageSize = 64;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    // Every stride-2 layer of ResNet18 rounds up (ceil(n/2)): 33 px ends at 2x2, four values.
    c.imageSize = 33;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
}

TEST(ConfigValidate, ValidCudaLedgerConfigsPass)
{
    RunConfig c = cudaConfig();
    c.tf32 = true;
    c.cudnnBenchmark = true;
    c.autocast = Autocast::BF16;
    c.channelsLast = true;
    c.cudaGraph = true;
    c.optimizer = Optimizer::Fused;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.autocast = Autocast::FP16;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.batch = 128;
    c.imageSize = 224;
    c.device = "cuda:0";
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
}

TEST(ConfigValidate, EveryViolationIsReportedAndDescribed)
{
    RunConfig c;
    c.batch = 0;
    c.imageSize = 2000;
    c.classes = 0;
    c.steps = 0;
    c.warmupSteps = -1;
    c.tf32 = true;
    c.device = "tpu";
    const auto errors = validate(c);
    std::set<std::string> named;
    for (const auto &e : errors)
        named.insert(e.field);
    for (const char *f : {"batch", "image_size", "classes", "steps", "warmup_steps", "device"})
        EXPECT_TRUE(named.count(f)) << f << " not named in: " << describe(errors);
    const std::string text = describe(errors);
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), errors.size() - 1);
    EXPECT_TRUE(contains(text, "batch: ")) << text;
}

// ---------------------------------------------------------------------------------------------
// The invalid configurations both workers refuse alike: tests/data/invalid_configs.json, which
// tests/python/test_worker.py runs through the Python worker.

QJsonDocument readJson(const QString &path)
{
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(file.readAll(), &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << path.toStdString() << ": " << error.errorString().toStdString();
    return doc;
}

TEST(ConfigInvalidCases, EachIsRefusedWithTheFieldsAndMessagesOfTheFile)
{
    const auto cases = readJson(STEPSCOPE_SOURCE_DIR "/tests/data/invalid_configs.json").object()["cases"].toArray();
    ASSERT_GE(cases.size(), 50) << "the file lost its cases";
    std::set<std::string> names;
    for (const auto &entry : cases) {
        const QJsonObject k = entry.toObject();
        const std::string name = k["name"].toString().toStdString();
        EXPECT_TRUE(names.insert(name).second) << "two cases named " << name;
        const QJsonValue config = k["config"];
        // Each worker fills a missing runtime with its own: a case names it, so both see one configuration.
        if (config.isObject()) {
            EXPECT_TRUE(config.toObject().contains("runtime")) << name;
        }
        const QByteArray text = config.isObject() ? QJsonDocument(config.toObject()).toJson(QJsonDocument::Compact)
                                                  : QJsonDocument(config.toArray()).toJson(QJsonDocument::Compact);
        RunConfig c;
        std::vector<ConfigError> errors;
        EXPECT_FALSE(parseConfig(text, c, errors)) << name;
        std::vector<std::pair<std::string, std::string>> got, expected;
        for (const auto &e : errors)
            got.emplace_back(e.field, e.message);
        for (const auto &e : k["errors"].toArray())
            expected.emplace_back(e[0].toString().toStdString(), e[1].toString().toStdString());
        EXPECT_EQ(got, expected) << name << "\n" << describe(errors);
    }
}

// The table checks itself: a rule that names a field or value that does not exist would never fire.
TEST(ConfigTable, RulesNameRealFieldsAndValues)
{
    for (const auto &rule : rules()) {
        EXPECT_NE(findField(rule.field), nullptr) << rule.message;
        for (const auto &w : rule.when) {
            ASSERT_NE(findField(w.field), nullptr) << rule.message;
            for (const auto &value : w.values) {
                RunConfig c;
                ConfigError error;
                EXPECT_TRUE(setField(c, w.field, value, error)) << rule.message << ": " << error.message;
                EXPECT_EQ(valueText(c, *findField(w.field)), value) << "a value rules compare must be its spelling";
            }
        }
        const std::string filled = fillMessage(rule.message, [&](const std::string &key, std::string &out) {
            out = key;
            return findField(key) != nullptr;
        });
        EXPECT_EQ(filled.find('{'), std::string::npos) << "a placeholder names no field: " << rule.message;
    }
    // Every field round-trips its default through its own text.
    for (const auto &f : fields()) {
        RunConfig c;
        ConfigError error;
        EXPECT_TRUE(setField(c, f.key, valueText(RunConfig{}, f), error)) << f.key << ": " << error.message;
        EXPECT_TRUE(c == RunConfig{}) << f.key;
    }
}

// What the build put beside the Python worker is this table, not an older one.
TEST(ConfigTable, BuildWroteTheSchemaOfThisTable)
{
    const QString path = STEPSCOPE_BIN_DIR "/stepscope_py/config_schema.json";
    ASSERT_TRUE(QFile::exists(path)) << path.toStdString() << " is missing: the build writes it";
    const QJsonObject written = readJson(path).object();
    EXPECT_EQ(written, configSchema()) << "rebuild: " << path.toStdString() << " is stale";
    EXPECT_EQ(written["format"].toString().toStdString(), kConfigSchemaFormat);
    EXPECT_EQ(written["version"].toInt(), kConfigSchemaVersion);
    const auto listed = written["fields"].toArray();
    ASSERT_EQ(static_cast<std::size_t>(listed.size()), fields().size());
    EXPECT_EQ(static_cast<std::size_t>(written["rules"].toArray().size()), rules().size());
    // Exact through JSON: the seed's upper bound is above 2^53.
    for (const auto &entry : listed) {
        const QJsonObject f = entry.toObject();
        if (f["key"].toString() == "seed") {
            EXPECT_EQ(f["max"].toInteger(), std::numeric_limits<long long>::max());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON

TEST(ConfigJson, RoundTripKeepsEveryField)
{
    RunConfig c;
    c.runtime = Runtime::Python;
    c.device = "cuda:2";
    c.tf32 = true;
    c.cudnnBenchmark = true;
    c.autocast = Autocast::FP16;
    c.channelsLast = true;
    c.cudaGraph = false;
    c.optimizer = Optimizer::PerParameter;
    c.compile = CompileMode::Default;
    c.compileBackend = CompileBackend::AotEager;
    c.compileTarget = CompileTarget::Step;
    c.batch = 257;
    c.imageSize = 96;
    c.classes = 17;
    c.warmupSteps = 3;
    c.steps = 12345;
    c.seed = (1ull << 53) + 1; // not representable as a double
    c.cpuAffinity = "2-3,8";
    c.threads = 4;

    // Through the text the worker actually receives.
    const QByteArray text = QJsonDocument(toJson(c)).toJson(QJsonDocument::Compact);
    RunConfig back;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(parseConfig(text, back, errors)) << describe(errors);
    EXPECT_TRUE(back == c) << text.toStdString();
    EXPECT_EQ(back.seed, (1ull << 53) + 1);

    for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{9223372036854775807ull}}) {
        c.seed = seed;
        RunConfig again;
        ASSERT_TRUE(fromJson(toJson(c), again, errors)) << describe(errors);
        EXPECT_TRUE(again == c);
        EXPECT_EQ(again.seed, seed);
    }

    // Every JSON key is a documented field, and every field is written.
    const QJsonObject o = toJson(c);
    EXPECT_EQ(static_cast<std::size_t>(o.size()), fields().size());
    for (const auto &f : fields())
        EXPECT_TRUE(o.contains(QLatin1String(f.key))) << f.key;
}

TEST(ConfigJson, FromJsonAppliesOnTopOfBaseAndTypesValues)
{
    RunConfig base = cudaConfig();
    base.batch = 64;
    const auto doc = QJsonDocument::fromJson(R"({"tf32":true,"image_size":128,"seed":42,"autocast":"bf16"})");
    RunConfig c;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(fromJson(doc.object(), c, errors, base)) << describe(errors);
    EXPECT_EQ(c.device, "cuda");
    EXPECT_EQ(c.batch, 64);
    EXPECT_TRUE(c.tf32);
    EXPECT_EQ(c.imageSize, 128);
    EXPECT_EQ(c.seed, 42u);
    EXPECT_EQ(c.autocast, Autocast::BF16);
}

TEST(ConfigJson, BrokenJsonIsAJsonFieldErrorWithOffset)
{
    RunConfig c;
    std::vector<ConfigError> errors;
    EXPECT_FALSE(parseConfig(R"({"batch": 32, "device": )", c, errors));
    ASSERT_EQ(errors.size(), 1u) << describe(errors);
    EXPECT_EQ(errors[0].field, "json");
    EXPECT_TRUE(contains(errors[0].message, "not valid JSON")) << errors[0].message;
    EXPECT_TRUE(contains(errors[0].message, "offset")) << errors[0].message;

    errors.clear();
    EXPECT_FALSE(parseConfig("[1, 2]", c, errors));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].field, "json");
    EXPECT_TRUE(contains(errors[0].message, "object")) << errors[0].message;
}

TEST(ConfigJson, ParseConfigValidates)
{
    RunConfig c;
    std::vector<ConfigError> errors;
    EXPECT_FALSE(parseConfig(R"({"device":"cpu","cuda_graph":true})", c, errors));
    ASSERT_EQ(errors.size(), 1u) << describe(errors);
    EXPECT_EQ(errors[0].field, "cuda_graph");

    errors.clear();
    EXPECT_TRUE(parseConfig(R"({"device":"cuda","cuda_graph":true,"steps":5})", c, errors)) << describe(errors);
    EXPECT_TRUE(c.cudaGraph);
    EXPECT_EQ(c.steps, 5);
}

// ---------------------------------------------------------------------------------------------
// Names

TEST(ConfigNames, CanonicalNameIsStableAndDistinct)
{
    RunConfig a = cudaConfig();
    EXPECT_EQ(canonicalName(a), canonicalName(cudaConfig()));
    EXPECT_EQ(knobLabel(a), "baseline");

    // Every knob combination gets a name of its own.
    std::set<std::string> names;
    std::size_t count = 0;
    for (bool tf32 : {false, true})
        for (bool cudnn : {false, true})
            for (Autocast ac : {Autocast::Off, Autocast::BF16, Autocast::FP16})
                for (bool cl : {false, true})
                    for (bool graph : {false, true})
                        for (Optimizer opt : {Optimizer::PerParameter, Optimizer::Foreach, Optimizer::Fused})
                            for (CompileMode cm : {CompileMode::None, CompileMode::Default, CompileMode::ReduceOverhead,
                                                   CompileMode::MaxAutotune}) {
                                RunConfig c = cudaConfig();
                                c.tf32 = tf32;
                                c.cudnnBenchmark = cudnn;
                                c.autocast = ac;
                                c.channelsLast = cl;
                                c.cudaGraph = graph;
                                c.optimizer = opt;
                                c.compile = cm;
                                names.insert(canonicalName(c));
                                ++count;
                            }
    EXPECT_EQ(names.size(), count);

    // The shape, the device and the runtime are part of the name too.
    const std::string base = canonicalName(a);
    auto differs = [&](void (*change)(RunConfig &)) {
        RunConfig c = cudaConfig();
        change(c);
        return canonicalName(c) != base;
    };
    EXPECT_TRUE(differs([](RunConfig &c) { c.batch = 64; }));
    EXPECT_TRUE(differs([](RunConfig &c) { c.imageSize = 128; }));
    EXPECT_TRUE(differs([](RunConfig &c) { c.classes = 10; }));
    EXPECT_TRUE(differs([](RunConfig &c) { c.device = "cpu"; }));
    EXPECT_TRUE(differs([](RunConfig &c) { c.runtime = Runtime::Python; }));
    // b1 at 28px must not read like b12 at 8px.
    RunConfig x = cudaConfig(), y = cudaConfig();
    x.batch = 1;
    x.imageSize = 228;
    y.batch = 12;
    y.imageSize = 28;
    EXPECT_NE(canonicalName(x), canonicalName(y));
}

TEST(ConfigNames, CompileSettingsFollowTheirMode)
{
    RunConfig c = compiled(CompileMode::Default);
    c.tf32 = true;
    EXPECT_EQ(knobLabel(c), "tf32+compile-default");
    c.compileBackend = CompileBackend::CudaGraphs;
    c.compileTarget = CompileTarget::Step;
    EXPECT_EQ(knobNames(c), (std::vector<std::string>{"tf32", "compile-default", "backend-cudagraphs", "whole-step"}));
    c.compileBackend = CompileBackend::AotEager;
    c.compileTarget = CompileTarget::Model;
    EXPECT_EQ(knobLabel(c), "tf32+compile-default+backend-aot_eager");
    c.compile = CompileMode::MaxAutotuneNoCudagraphs;
    c.compileBackend = CompileBackend::Inductor;
    EXPECT_EQ(knobLabel(c), "tf32+compile-max-autotune-no-cudagraphs");

    // Model and step, every backend: distinct names, one shape of name.
    std::set<std::string> names;
    for (CompileBackend b : {CompileBackend::Inductor, CompileBackend::CudaGraphs, CompileBackend::AotEager})
        for (CompileTarget t : {CompileTarget::Model, CompileTarget::Step}) {
            RunConfig x = compiled(CompileMode::Default);
            x.compileBackend = b;
            x.compileTarget = t;
            const std::string name = canonicalName(x);
            EXPECT_EQ(name.rfind("python cuda b32 224px c1000 compile-default", 0), 0u) << name;
            names.insert(name);
        }
    EXPECT_EQ(names.size(), 6u);
    // The runtime prefix tells Python eager from native.
    RunConfig eager = cudaConfig();
    const std::string native = canonicalName(eager);
    eager.runtime = Runtime::Python;
    EXPECT_EQ(canonicalName(eager), "python" + native.substr(native.find(' ')));
    EXPECT_EQ(native.rfind("native ", 0), 0u) << native;
}

TEST(ConfigNames, KnobLabelFollowsLedgerOrder)
{
    RunConfig c = cudaConfig();
    c.optimizer = Optimizer::Fused;
    c.tf32 = true;
    c.channelsLast = true;
    c.autocast = Autocast::FP16;
    c.cudaGraph = true;
    c.cudnnBenchmark = true;
    EXPECT_EQ(knobLabel(c), "tf32+cudnn-bench+fp16+channels-last+cuda-graph+sgd-fused");
    c.compile = CompileMode::ReduceOverhead;
    c.optimizer = Optimizer::PerParameter;
    EXPECT_EQ(knobLabel(c), "tf32+cudnn-bench+fp16+channels-last+cuda-graph+sgd-per-parameter+compile-reduce-overhead");
}

// ---------------------------------------------------------------------------------------------
// Presets

TEST(ConfigPresets, CudaLedgerIsCumulativeInDesignOrder)
{
    RunConfig base = cudaConfig();
    base.batch = 128;
    base.tf32 = true; // knobs of the base never leak into the baseline
    base.compile = CompileMode::Default;
    const Sweep s = ledgerSweep(base);
    EXPECT_TRUE(s.skipped.empty()) << s.skipped.front();
    const std::vector<std::string> expected{
        "baseline",
        "tf32",
        "tf32+cudnn-bench",
        "tf32+cudnn-bench+bf16",
        "tf32+cudnn-bench+bf16+channels-last",
        // Pinned after channels-last, where an eager step gets launch-bound; the later rows keep the pin.
        "tf32+cudnn-bench+bf16+channels-last+pin-one-core",
        "tf32+cudnn-bench+bf16+channels-last+pin-one-core+cuda-graph",
        "tf32+cudnn-bench+bf16+channels-last+pin-one-core+cuda-graph+sgd-fused",
        // Then Python, unpinned: eager on the same eager knobs, and the compile modes on top of them.
        "tf32+cudnn-bench+bf16+channels-last",
        "tf32+cudnn-bench+bf16+channels-last+compile-default",
        "tf32+cudnn-bench+bf16+channels-last+compile-reduce-overhead",
        // The fastest step within reach: inductor's kernels inside the whole-step graph, fused SGD.
        "tf32+cudnn-bench+bf16+channels-last+cuda-graph+sgd-fused+compile-default",
    };
    EXPECT_EQ(labels(s), expected);
    std::set<std::string> names;
    for (std::size_t i = 0; i < s.configs.size(); ++i) {
        const RunConfig &c = s.configs[i];
        EXPECT_EQ(c.batch, 128);
        EXPECT_EQ(c.device, "cuda");
        EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
        EXPECT_EQ(c.runtime, i < 8 ? Runtime::Native : Runtime::Python) << i;
        EXPECT_EQ(c.cpuAffinity, i >= 5 && i < 8 ? "one" : "none") << i;
        names.insert(canonicalName(c));
    }
    EXPECT_EQ(names.size(), s.configs.size()) << "every row is a configuration of its own";
    EXPECT_TRUE(s.configs.front() == baselineOf(base));
    for (std::size_t i = 8; i < s.configs.size(); ++i) {
        const RunConfig &c = s.configs[i];
        const bool fastest = i + 1 == s.configs.size();
        EXPECT_EQ(c.cudaGraph, fastest) << i;
        EXPECT_EQ(c.optimizer, fastest ? Optimizer::Fused : Optimizer::Foreach) << i;
        EXPECT_EQ(c.compileBackend, CompileBackend::Inductor) << i;
        EXPECT_EQ(c.compileTarget, CompileTarget::Model) << i;
    }
    EXPECT_EQ(s.configs[8].compile, CompileMode::None);
    EXPECT_EQ(s.configs[9].compile, CompileMode::Default);
    EXPECT_EQ(s.configs[10].compile, CompileMode::ReduceOverhead);
    EXPECT_EQ(s.configs[11].compile, CompileMode::Default);
    // The native part of the ledger knobs is unchanged.
    std::vector<std::string> native;
    for (const auto &k : ledgerKnobs())
        native.push_back(k.name);
    EXPECT_EQ(native,
              (std::vector<std::string>{"tf32", "cudnn-bench", "bf16", "channels-last", "cuda-graph", "sgd-fused"}));

    Sweep viaPreset;
    std::string error;
    ASSERT_TRUE(buildPreset("ledger", base, viaPreset, error)) << error;
    EXPECT_EQ(labels(viaPreset), expected);
}

TEST(ConfigPresets, CpuLedgerSkipsCudaKnobsAndSaysSo)
{
    const Sweep s = ledgerSweep(RunConfig{});
    const std::vector<std::string> expected{"baseline", "bf16", "bf16+channels-last", "bf16+channels-last+sgd-fused"};
    EXPECT_EQ(labels(s), expected);
    ASSERT_EQ(s.skipped.size(), 3u);
    EXPECT_EQ(s.skipped[0].rfind("tf32 (", 0), 0u) << s.skipped[0];
    EXPECT_EQ(s.skipped[1].rfind("cudnn-bench (", 0), 0u) << s.skipped[1];
    EXPECT_EQ(s.skipped[2].rfind("cuda-graph (", 0), 0u) << s.skipped[2];
    for (const auto &why : s.skipped)
        EXPECT_TRUE(contains(why, "CUDA")) << why;
    // A cold CPU compile costs minutes: no Python rows on the CPU; nor a pin (a CPU step wants its cores).
    for (const auto &c : s.configs) {
        EXPECT_EQ(c.runtime, Runtime::Native) << knobLabel(c);
        EXPECT_EQ(c.cpuAffinity, "none") << knobLabel(c);
    }
}

TEST(ConfigPresets, PythonLedgerHasNoSecondPythonPart)
{
    RunConfig base = cudaConfig();
    base.runtime = Runtime::Python;
    const Sweep s = ledgerSweep(base);
    ASSERT_EQ(s.configs.size(), 8u); // the pin row too: no compile row here to slow down
    for (const auto &c : s.configs) {
        EXPECT_EQ(c.runtime, Runtime::Python);
        EXPECT_EQ(c.compile, CompileMode::None);
    }
}

TEST(ConfigPresets, EachHasBaselineAndEveryKnobAlone)
{
    const Sweep s = eachSweep(cudaConfig());
    EXPECT_TRUE(s.skipped.empty());
    const std::vector<std::string> expected{"baseline",
                                            "tf32",
                                            "cudnn-bench",
                                            "bf16",
                                            "fp16",
                                            "channels-last",
                                            "cuda-graph",
                                            "sgd-per-parameter",
                                            "sgd-fused",
                                            "compile-default",
                                            "compile-reduce-overhead",
                                            "compile-max-autotune"};
    EXPECT_EQ(labels(s), expected);
    ASSERT_EQ(s.configs.size(), 12u);
    for (std::size_t i = 0; i < s.configs.size(); ++i) {
        const RunConfig &c = s.configs[i];
        // The compile modes alone: python runtime, fp32, no other knob.
        EXPECT_EQ(c.runtime, i >= 9 ? Runtime::Python : Runtime::Native) << expected[i];
        if (i >= 9) {
            RunConfig eager = c;
            eager.compile = CompileMode::None;
            eager.runtime = Runtime::Native;
            EXPECT_TRUE(eager == s.configs.front()) << expected[i];
        }
    }

    Sweep viaPreset;
    std::string error;
    ASSERT_TRUE(buildPreset("each", cudaConfig(), viaPreset, error)) << error;
    EXPECT_EQ(labels(viaPreset), expected);

    // On the CPU, the CUDA knobs (tf32, cudnn-bench, fp16, cuda-graph) are left out.
    // On the CPU, the CUDA knobs (tf32, cudnn-bench, fp16, cuda-graph) and the compile modes that
    // use CUDA graphs are left out, each with its reason; the CPU's compile modes run.
    const Sweep cpu = eachSweep(RunConfig{});
    EXPECT_EQ(labels(cpu),
              (std::vector<std::string>{"baseline", "bf16", "channels-last", "sgd-per-parameter", "sgd-fused",
                                        "compile-default", "compile-max-autotune-no-cudagraphs"}));
    ASSERT_EQ(cpu.skipped.size(), 6u);
    EXPECT_EQ(cpu.skipped[4].rfind("compile-reduce-overhead (", 0), 0u) << cpu.skipped[4];
    EXPECT_TRUE(contains(cpu.skipped[4], "uses CUDA graphs")) << cpu.skipped[4];
    EXPECT_EQ(cpu.skipped[5].rfind("compile-max-autotune (", 0), 0u) << cpu.skipped[5];
}

TEST(ConfigPresets, CompileKnobsSetPythonAndTheirMode)
{
    std::set<std::string> all;
    for (const auto &k : allKnobs())
        all.insert(k.name);
    for (const char *name :
         {"compile-default", "compile-reduce-overhead", "compile-max-autotune", "compile-max-autotune-no-cudagraphs",
          "backend-cudagraphs", "backend-aot_eager", "whole-step"})
        EXPECT_TRUE(all.count(name)) << name;
    EXPECT_FALSE(all.count("warm-cache")) << "the caches a compile finds are the run's start state, no knob";
    for (const auto &k : allKnobs()) {
        RunConfig c = cudaConfig();
        k.apply(c);
        // A knob is named as knobNames() names the setting it switches on.
        if (k.name.rfind("compile-", 0) == 0) {
            EXPECT_EQ(c.runtime, Runtime::Python) << k.name;
            EXPECT_EQ(knobLabel(c), k.name);
            EXPECT_TRUE(validate(c).empty()) << k.name << ": " << describe(validate(c));
        }
    }
    for (const auto &k : ledgerKnobs())
        EXPECT_EQ(k.name.rfind("compile-", 0), std::string::npos) << k.name;
}

TEST(ConfigPresets, EachOfNamedCompileSettings)
{
    // Named, no-cudagraphs runs on CUDA too; a modifier alone is skipped with the reason.
    const Sweep s = eachSweep(cudaConfig(), {"compile-max-autotune-no-cudagraphs", "whole-step"});
    EXPECT_EQ(labels(s), (std::vector<std::string>{"baseline", "compile-max-autotune-no-cudagraphs"}));
    ASSERT_EQ(s.skipped.size(), 1u);
    EXPECT_EQ(s.skipped[0].rfind("whole-step (", 0), 0u) << s.skipped[0];
    EXPECT_TRUE(contains(s.skipped[0], "applies only with a compile mode")) << s.skipped[0];
}

TEST(ConfigPresets, CumulativeAddsCompileModifiersAfterTheMode)
{
    const Sweep s = cumulativeSweep(cudaConfig(), {"whole-step", "tf32", "compile-default", "backend-aot_eager"});
    EXPECT_TRUE(s.skipped.empty()) << s.skipped.front();
    EXPECT_EQ(labels(s), (std::vector<std::string>{"baseline", "tf32", "tf32+compile-default",
                                                   "tf32+compile-default+backend-aot_eager",
                                                   "tf32+compile-default+backend-aot_eager+whole-step"}));
    EXPECT_EQ(s.configs[1].runtime, Runtime::Native);
    EXPECT_EQ(s.configs.back().runtime, Runtime::Python);
}

TEST(ConfigPresets, CombinationsOfCompileModesSkipClashesAndRepeats)
{
    const Sweep s = combinationSweep(cudaConfig(), {"compile-default", "compile-max-autotune", "cuda-graph"});
    // baseline, default, max-autotune, cuda-graph, and default inside the whole-step graph;
    // default+max-autotune is max-autotune again; max-autotune captures graphs of its own, so it
    // does not go under cuda-graph.
    EXPECT_EQ(labels(s), (std::vector<std::string>{"baseline", "compile-default", "compile-max-autotune", "cuda-graph",
                                                   "cuda-graph+compile-default"}));
    ASSERT_EQ(s.skipped.size(), 3u);
    int again = 0, clash = 0;
    for (const auto &why : s.skipped) {
        again += contains(why, "same setting");
        clash += contains(why, "captures CUDA graphs of its own");
    }
    EXPECT_EQ(again, 1) << s.skipped[0];
    EXPECT_EQ(clash, 2) << s.skipped[0];
}

TEST(ConfigPresets, WithShapeOfKeepsPythonForCompile)
{
    RunConfig shape = cudaConfig();
    shape.batch = 64;
    const RunConfig c = withShapeOf(compiled(CompileMode::Default), shape);
    EXPECT_EQ(c.runtime, Runtime::Python);
    EXPECT_EQ(c.batch, 64);
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    RunConfig eager = compiled(CompileMode::None);
    EXPECT_EQ(withShapeOf(eager, shape).runtime, Runtime::Native);
}

TEST(ConfigPresets, CombinationOfThreeKnobsGivesEight)
{
    const Sweep s = combinationSweep(cudaConfig(), {"tf32", "bf16", "channels-last"});
    EXPECT_TRUE(s.skipped.empty());
    ASSERT_EQ(s.configs.size(), 8u);
    const auto l = labels(s);
    EXPECT_EQ(std::set<std::string>(l.begin(), l.end()).size(), 8u);
    EXPECT_EQ(l.front(), "baseline");
    EXPECT_NE(std::find(l.begin(), l.end(), "tf32+bf16+channels-last"), l.end());

    // fp16 with a graph but without the fused optimizer is not a valid corner: skipped, said why.
    const Sweep clash = combinationSweep(cudaConfig(), {"fp16", "cuda-graph"});
    EXPECT_EQ(clash.configs.size(), 3u);
    ASSERT_EQ(clash.skipped.size(), 1u);
    EXPECT_TRUE(contains(clash.skipped[0], "fp16+cuda-graph")) << clash.skipped[0];
}

TEST(ConfigPresets, CombinationReportsUnknownKnob)
{
    const Sweep s = combinationSweep(cudaConfig(), {"tf32", "warp-drive"});
    EXPECT_EQ(s.configs.size(), 2u);
    ASSERT_EQ(s.skipped.size(), 1u);
    EXPECT_TRUE(contains(s.skipped[0], "warp-drive")) << s.skipped[0];
}

TEST(ConfigAffinity, CoreListsParseAndNormalize)
{
    std::vector<int> cores;
    std::string error;
    ASSERT_TRUE(parseCoreList("3", cores, error)) << error;
    EXPECT_EQ(cores, (std::vector<int>{3}));
    ASSERT_TRUE(parseCoreList("4-7,2,3", cores, error)) << error;
    EXPECT_EQ(cores, (std::vector<int>{2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(formatCoreList(cores), "2-7");
    EXPECT_EQ(formatCoreList({8, 0, 2, 3, 3}), "0,2-3,8");
    EXPECT_EQ(formatCoreList({}), "");
    ASSERT_TRUE(parseCoreList("1023", cores, error)) << error;
    for (const char *bad : {"", "1024", "-1", "3-1", "2,", ",2", "a", "2 3", "1-2-3", "0x3", "2-", "3,3", "4-7,5"}) {
        EXPECT_FALSE(parseCoreList(bad, cores, error)) << bad;
        EXPECT_TRUE(contains(error, "core list")) << error;
        EXPECT_TRUE(cores.empty()) << bad;
    }
    EXPECT_EQ(pickOneCore({0, 1, 2, 3}), 1);
    EXPECT_EQ(pickOneCore({4, 5}), 4);
    EXPECT_EQ(pickOneCore({0}), 0);
    EXPECT_EQ(pickOneCore({}), -1);
}

TEST(ConfigAffinity, FieldsJsonAndNames)
{
    RunConfig c;
    ConfigError error;
    EXPECT_EQ(c.cpuAffinity, "none");
    EXPECT_EQ(c.threads, 0);
    EXPECT_TRUE(setField(c, "cpu_affinity", "one", error));
    EXPECT_EQ(c.cpuAffinity, "one");
    EXPECT_EQ(knobLabel(c), "pin-one-core");
    // One spelling per set of cores, so that "3,2" and "2-3" are the same configuration.
    EXPECT_TRUE(setField(c, "cpu_affinity", "3,2", error));
    EXPECT_EQ(c.cpuAffinity, "2-3");
    EXPECT_EQ(knobLabel(c), "pin-2-3");
    EXPECT_FALSE(setField(c, "cpu_affinity", "all", error));
    EXPECT_EQ(error.field, "cpu_affinity");
    EXPECT_TRUE(contains(error.message, "none, one or a core list")) << error.message;
    EXPECT_EQ(c.cpuAffinity, "2-3") << "a refused value leaves the field alone";
    EXPECT_TRUE(setField(c, "threads", "4", error));
    EXPECT_EQ(c.threads, 4);
    EXPECT_FALSE(setField(c, "threads", "257", error));
    EXPECT_FALSE(setField(c, "threads", "-1", error));
    c.channelsLast = true;
    c.cudaGraph = true;
    c.device = "cuda";
    EXPECT_EQ(knobLabel(c), "channels-last+pin-2-3+cuda-graph+threads-4");

    RunConfig pinned = cudaConfig(), threaded = cudaConfig();
    pinned.cpuAffinity = "one";
    threaded.threads = 1;
    std::set<std::string> names{canonicalName(cudaConfig()), canonicalName(pinned), canonicalName(threaded)};
    EXPECT_EQ(names.size(), 3u);
    EXPECT_FALSE(pinned == cudaConfig());
    EXPECT_FALSE(threaded == cudaConfig());

    // JSON members as a sweep file writes them; numbers are fine for a single core.
    RunConfig fromFile;
    std::vector<ConfigError> errors;
    ASSERT_TRUE(parseConfig(R"({"cpu_affinity": 5, "threads": 2})", fromFile, errors)) << describe(errors);
    EXPECT_EQ(fromFile.cpuAffinity, "5");
    EXPECT_EQ(fromFile.threads, 2);
    errors.clear();
    EXPECT_FALSE(parseConfig(R"({"cpu_affinity": "0-2000"})", fromFile, errors));
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors.front().field, "cpu_affinity");

    // validate() catches what bypassed setField.
    RunConfig direct;
    direct.cpuAffinity = "7-3";
    direct.threads = 300;
    EXPECT_EQ(errorsFor(direct, "cpu_affinity").size(), 1u);
    EXPECT_EQ(errorsFor(direct, "threads").size(), 1u);
}

TEST(ConfigAffinity, SweepsCarryThreadsAndTreatThePinAsAKnob)
{
    RunConfig base = cudaConfig();
    base.threads = 2;
    base.cpuAffinity = "one";
    // Threads come with the shape: every row has them, and asking for them is no unknown knob.
    const Sweep ledger = ledgerSweep(base);
    for (const auto &c : ledger.configs)
        EXPECT_EQ(c.threads, 2) << knobLabel(c);
    EXPECT_EQ(ledger.configs.front().cpuAffinity, "none") << "the pin is a knob: the baseline has none";
    const Sweep mine = cumulativeSweep(base, knobNames(base));
    EXPECT_TRUE(mine.skipped.empty()) << mine.skipped.front();
    EXPECT_EQ(labels(mine), (std::vector<std::string>{"threads-2", "pin-one-core+threads-2"}));
    const Sweep combos = combinationSweep(base, {"pin-one-core", "threads-2"});
    EXPECT_TRUE(combos.skipped.empty());
    EXPECT_EQ(combos.configs.size(), 2u);
    // Each, unnamed, leaves the pin out (the fp32 baseline tells little about launches); named it runs.
    for (const auto &c : eachSweep(cudaConfig()).configs)
        EXPECT_EQ(c.cpuAffinity, "none") << knobLabel(c);
    EXPECT_EQ(labels(eachSweep(cudaConfig(), {"pin-one-core"})),
              (std::vector<std::string>{"baseline", "pin-one-core"}));
}

// Issue 19.9: the same configuration at two seeds is an A/A check, two rows that say how they
// differ, not one row of pooled repeats. Seed 0 (every sweep's default) leaves names as they were.
TEST(ConfigNames, ASeedOtherThanZeroIsInTheLabelAndTheName)
{
    RunConfig zero = cudaConfig(), one = cudaConfig();
    zero.tf32 = one.tf32 = true;
    one.seed = 1;
    EXPECT_EQ(knobLabel(zero), "tf32");
    EXPECT_EQ(knobLabel(one), "tf32+seed-1");
    EXPECT_NE(canonicalName(zero), canonicalName(one));
    EXPECT_EQ(canonicalName(zero), "native cuda b32 224px c1000 tf32");
    RunConfig baselineAtSeven = cudaConfig();
    baselineAtSeven.seed = 7;
    baselineAtSeven.threads = 2;
    EXPECT_EQ(knobLabel(baselineAtSeven), "threads-2+seed-7");
    // The seed comes with the shape into every row, and asking for it is no unknown knob.
    const Sweep mine = cumulativeSweep(one, knobNames(one));
    EXPECT_TRUE(mine.skipped.empty()) << mine.skipped.front();
    EXPECT_EQ(labels(mine), (std::vector<std::string>{"seed-1", "tf32+seed-1"}));
    // Each with the base's names and no knob among them (the dashboard passes knobNames(form)) runs
    // every knob alone, as with no names.
    RunConfig seeded = cudaConfig();
    seeded.seed = 1;
    EXPECT_EQ(eachSweep(seeded, knobNames(seeded)).configs.size(), eachSweep(seeded).configs.size());
    EXPECT_GT(eachSweep(seeded).configs.size(), 2u);
}

TEST(ConfigPresets, UnknownPresetIsAnError)
{
    Sweep s;
    std::string error;
    EXPECT_FALSE(buildPreset("fastest", cudaConfig(), s, error));
    EXPECT_TRUE(contains(error, "fastest")) << error;
    for (const auto &name : presetNames())
        EXPECT_TRUE(contains(error, name)) << error;
}

// ---------------------------------------------------------------------------------------------
// The sweep's baseline

TEST(ConfigBaseline, DefaultIsFp32EagerOfTheSweepsShapeElseTheFirst)
{
    Sweep ledger;
    std::string error;
    ASSERT_TRUE(buildPreset("ledger", cudaConfig(), ledger, error)) << error;
    EXPECT_EQ(defaultBaseline(ledger.configs), 0u);

    RunConfig tf32 = cudaConfig(), bf16 = cudaConfig();
    tf32.tf32 = true;
    bf16.autocast = Autocast::BF16;
    EXPECT_EQ(defaultBaseline({tf32, bf16, cudaConfig()}), 2u) << "listed last, still the baseline";
    EXPECT_EQ(defaultBaseline({tf32, bf16}), 0u) << "no fp32 eager: the first";
    RunConfig otherShape = cudaConfig();
    otherShape.batch = 64;
    EXPECT_EQ(defaultBaseline({tf32, otherShape}), 0u) << "fp32 eager of another shape is not it";

    // A compile sweep's baseline is Python eager: the same runtime.
    RunConfig compiled = cudaConfig(), pythonEager = cudaConfig();
    compiled.runtime = pythonEager.runtime = Runtime::Python;
    compiled.compile = CompileMode::Default;
    EXPECT_EQ(defaultBaseline({compiled, cudaConfig(), pythonEager}), 2u);
    EXPECT_EQ(defaultBaseline({}), 0u);
}

TEST(ConfigBaseline, FoundByPositionLabelOrCanonicalName)
{
    RunConfig fp32 = cudaConfig(), tf32bf16 = cudaConfig(), python = cudaConfig();
    tf32bf16.tf32 = true;
    tf32bf16.autocast = Autocast::BF16;
    python.runtime = Runtime::Python;
    python.tf32 = true;
    python.autocast = Autocast::BF16;
    const std::vector<RunConfig> configs{fp32, tf32bf16, python};
    std::string error;
    EXPECT_EQ(findBaseline(configs, "1", error), std::optional<std::size_t>(0));
    EXPECT_EQ(findBaseline(configs, "3", error), std::optional<std::size_t>(2));
    EXPECT_EQ(findBaseline(configs, "baseline", error), std::optional<std::size_t>(0));
    EXPECT_EQ(findBaseline(configs, "python tf32+bf16", error), std::optional<std::size_t>(2));
    EXPECT_EQ(findBaseline(configs, canonicalName(tf32bf16), error), std::optional<std::size_t>(1));
    EXPECT_EQ(findBaseline({fp32, tf32bf16, tf32bf16}, "tf32+bf16", error), std::optional<std::size_t>(1))
        << "the same configuration twice is one choice";

    for (const char *bad : {"0", "4", "99999999999999999999999", "fp16", "", "-1"}) {
        error.clear();
        EXPECT_FALSE(findBaseline(configs, bad, error)) << bad;
        EXPECT_TRUE(contains(error, "choose one of")) << error;
        EXPECT_TRUE(contains(error, "  2  tf32+bf16  (" + canonicalName(tf32bf16) + ")")) << error;
    }
    error.clear();
    EXPECT_FALSE(findBaseline(configs, "tf32+bf16", error)) << "native and python share the label";
    EXPECT_TRUE(contains(error, "more than one")) << error;
}

TEST(ConfigBaseline, JsonMarkerIsAcceptedAndChecked)
{
    RunConfig c;
    std::vector<ConfigError> errors;
    const auto object = QJsonDocument::fromJson(R"({"tf32": true, "baseline": true})").object();
    EXPECT_TRUE(fromJson(object, c, errors)) << describe(errors);
    EXPECT_TRUE(c.tf32);
    EXPECT_TRUE(isMarkedBaseline(object));
    EXPECT_FALSE(isMarkedBaseline(QJsonDocument::fromJson(R"({"baseline": false})").object()));
    EXPECT_FALSE(isMarkedBaseline(QJsonDocument::fromJson(R"({"tf32": true})").object()));
    EXPECT_FALSE(toJson(c).contains("baseline")) << "a sweep's choice, not a field of the configuration";

    errors.clear();
    EXPECT_FALSE(fromJson(QJsonDocument::fromJson(R"({"baseline": 2})").object(), c, errors));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].field, "baseline");
}

// Issue 21: the data-parallel fields and their rules, from the one table.
TEST(ConfigDataParallel, WorldSizeRulesAndLabels)
{
    RunConfig c;
    c.runtime = Runtime::Python;
    c.worldSize = 2;
    c.ddpStaticGraph = true;
    c.ddpBucketCapMb = 50;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    EXPECT_EQ(knobLabel(c), "ddp-2+bucket-50mb+static-graph");
    ConfigError e;
    RunConfig parsed;
    ASSERT_TRUE(setField(parsed, "world_size", "2", e)) << e.message;
    EXPECT_EQ(parsed.worldSize, 2);
    EXPECT_FALSE(setField(parsed, "world_size", "0", e));

    auto fieldsOf = [](const RunConfig &config) {
        std::vector<std::string> out;
        for (const auto &error : validate(config))
            out.push_back(error.field);
        return out;
    };
    RunConfig native = c;
    native.runtime = Runtime::Native;
    EXPECT_EQ(fieldsOf(native), std::vector<std::string>{"world_size"});
    RunConfig indexed = c;
    indexed.device = "cuda:1";
    EXPECT_EQ(fieldsOf(indexed), std::vector<std::string>{"world_size"});
    RunConfig pinned = c;
    pinned.cpuAffinity = "one";
    EXPECT_EQ(fieldsOf(pinned), std::vector<std::string>{"cpu_affinity"});
    RunConfig plain;
    plain.ddpStaticGraph = true;
    plain.ddpGradientAsBucketView = true;
    plain.ddpBucketCapMb = 10;
    EXPECT_EQ(fieldsOf(plain),
              (std::vector<std::string>{"ddp_bucket_cap_mb", "ddp_gradient_as_bucket_view", "ddp_static_graph"}));
}

} // namespace
} // namespace stepscope

namespace stepscope
{
namespace
{

// Issue 30: the model is a field of the configuration, one grammar for both workers.
TEST(ConfigModel, NamesOfEveryKindAreAcceptedAndOthersRefusedWithTheGrammar)
{
    for (const char *name :
         {"resnet18", "torchvision:mobilenet_v3_small", "timm:vit_tiny_patch16_224,img_size=64", "hf:gpt2",
          "hf:gpt2,n_layer=2,n_embd=64,n_head=2", "my_models.small:make", "pkg.sub.mod:factory,width=8",
          "/home/u/work/net.py:build", "relative/net.py:build,depth=2"}) {
        RunConfig c;
        c.runtime = Runtime::Python;
        ConfigError error;
        EXPECT_TRUE(setField(c, "model", name, error)) << name << ": " << error.message;
        EXPECT_EQ(c.model, name);
        EXPECT_TRUE(validate(c).empty()) << name << ": " << describe(validate(c));
    }
    for (const char *bad : {"", "resnet50", "timm:", "timm:vit,img_size", "mod:", ":factory", "mod:fac tory",
                            "1mod:make", "hf:gpt2,=2", "net.py:", "a,b.py:make"}) {
        RunConfig c;
        ConfigError error;
        EXPECT_FALSE(setField(c, "model", bad, error)) << bad;
        EXPECT_EQ(error.field, "model");
        EXPECT_NE(error.message.find("timm:NAME"), std::string::npos) << error.message;
        EXPECT_EQ(c.model, "resnet18") << "a refused name leaves the configuration alone";
    }
    // Set in code past setField, validate() checks it the same way.
    RunConfig c;
    c.runtime = Runtime::Python;
    c.model = "not a model";
    ASSERT_FALSE(validate(c).empty());
    EXPECT_EQ(validate(c).front().field, "model");
}

TEST(ConfigModel, AnotherModelRunsInEitherWorkerAndIsInTheNameNotTheLabel)
{
    RunConfig c;
    c.model = "timm:resnet50";
    // Runtime native, the default: the native worker trains it from its TorchScript export (issue 30.3).
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));
    c.runtime = Runtime::Python;
    EXPECT_TRUE(validate(c).empty()) << describe(validate(c));

    // The name tells models apart; the default model leaves names as they were before the field.
    RunConfig resnet;
    resnet.runtime = Runtime::Python;
    EXPECT_EQ(canonicalName(resnet).find("resnet18"), std::string::npos) << canonicalName(resnet);
    EXPECT_NE(canonicalName(c).find(" timm:resnet50 "), std::string::npos) << canonicalName(c);
    EXPECT_NE(canonicalName(c), canonicalName(resnet));
    EXPECT_EQ(knobLabel(c), knobLabel(resnet)); // a model is not a knob
    c.sequenceLength = 64;
    EXPECT_NE(canonicalName(c).find(" s64 "), std::string::npos) << canonicalName(c);

    // sequence_length means nothing to resnet18.
    resnet.sequenceLength = 64;
    ASSERT_FALSE(validate(resnet).empty());
    EXPECT_EQ(validate(resnet).front().field, "sequence_length");

    // Through JSON, as the worker receives it.
    RunConfig back;
    std::vector<ConfigError> jsonErrors;
    ASSERT_TRUE(fromJson(toJson(c), back, jsonErrors)) << describe(jsonErrors);
    EXPECT_EQ(back.model, "timm:resnet50");
    EXPECT_EQ(back.sequenceLength, 64);
}

TEST(ConfigModel, SweepsCarryTheModelIntoEveryRowAndRunItInPythonBesideOneNativeTwin)
{
    RunConfig base;
    base.device = "cuda";
    base.model = "timm:vit_tiny_patch16_224";
    const Sweep ledger = ledgerSweep(base);
    ASSERT_GE(ledger.configs.size(), 6u);
    std::set<std::string> names;
    std::vector<RunConfig> native;
    for (const RunConfig &c : ledger.configs) {
        EXPECT_EQ(c.model, base.model) << canonicalName(c);
        if (c.runtime == Runtime::Native)
            native.push_back(c);
        EXPECT_TRUE(validate(c).empty()) << canonicalName(c) << ": " << describe(validate(c));
        EXPECT_TRUE(names.insert(canonicalName(c)).second) << "twice: " << canonicalName(c);
    }
    // Issue 30.3: one native row (the TorchScript export), the twin of a Python row: a pair that
    // differs by the runtime alone.
    ASSERT_EQ(native.size(), 1u);
    RunConfig twin = native.front();
    twin.runtime = Runtime::Python;
    EXPECT_TRUE(twin.autocast == Autocast::BF16 && twin.tf32) << canonicalName(twin);
    EXPECT_NE(std::find(ledger.configs.begin(), ledger.configs.end(), twin), ledger.configs.end())
        << "no Python twin of " << canonicalName(native.front());
    // The compile rows, where compile earns its reputation, are in the ledger of another model too.
    EXPECT_TRUE(std::any_of(ledger.configs.begin(), ledger.configs.end(),
                            [](const RunConfig &c) { return c.compile == CompileMode::ReduceOverhead; }));
    EXPECT_EQ(baselineOf(ledger.configs.back()).model, base.model);
}

} // namespace
} // namespace stepscope

namespace stepscope
{
namespace
{

// The row a knob is judged against (issue 35.1): the same configuration without that knob's fields.
TEST(ConfigPresets, WithoutAKnobResetsOnlyTheFieldsThatKnobSets)
{
    RunConfig c;
    c.device = "cuda";
    c.batch = 64;
    c.tf32 = true;
    c.cudnnBenchmark = true;
    c.autocast = Autocast::BF16;
    c.cudaGraph = true;
    const auto without = configWithoutKnob(c, "cudnn-bench");
    ASSERT_TRUE(without);
    EXPECT_FALSE(without->cudnnBenchmark);
    EXPECT_EQ(knobLabel(*without), "tf32+bf16+cuda-graph");
    EXPECT_EQ(without->batch, 64);
    EXPECT_EQ(without->device, "cuda");

    RunConfig compiled = c;
    compiled.cudaGraph = false;
    compiled.runtime = Runtime::Python;
    compiled.compile = CompileMode::ReduceOverhead;
    const auto eager = configWithoutKnob(compiled, "compile-reduce-overhead");
    ASSERT_TRUE(eager);
    EXPECT_EQ(eager->compile, CompileMode::None);
    EXPECT_EQ(eager->runtime, Runtime::Python) << "judged against the same Python row eager";
    EXPECT_TRUE(validate(*eager).empty()) << describe(validate(*eager));

    EXPECT_FALSE(configWithoutKnob(c, "channels-last")) << "a knob the configuration does not carry";
    EXPECT_FALSE(configWithoutKnob(c, "no-such-knob"));
}

} // namespace
} // namespace stepscope
