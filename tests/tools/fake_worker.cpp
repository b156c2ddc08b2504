// stepscope-fake-worker: a stand-in for the native and Python workers in the supervisor and UI
// tests. It needs no torch, no shell and no POSIX tools, so the same tests run wherever the project
// builds. Its options are actions, done in the order given (as the lines of a shell script would):
//
//   --replay FILE      copy FILE (a recorded JSONL stream) to stdout, flushing every line
//   --pace MS          wait MS milliseconds before each line of every later --replay / --alternate
//   --count FILE       add one to the invocation count kept in FILE (it holds one number)
//   --first-exit CODE  after --count: the first invocation exits with CODE here
//   --alternate A B    after --count: replay A on odd-numbered invocations, B on even-numbered ones
//   --stderr TEXT      write TEXT and a newline to stderr
//   --env NAME         write "NAME=[value]" to stderr ("NAME unset" when it is not set), followed
//                      by " (a folder)" when the value names an existing folder
//   --bytes NAME       write "NAME holds N bytes" to stderr (the files under the folder NAME names;
//                      0 when it names none), kept for --record as --env's echoes are
//   --fill NAME BYTES  write a new file of BYTES bytes into the folder NAME names, as a worker fills
//                      a cache (each call a file of its own, so the folder grows)
//   --echo-config      write the --config JSON to stderr
//   --record FILE      append a line to FILE: the --config JSON, then a tab and what each earlier
//                      --env wrote, so a test learns what every worker process was given
//   --sleep SECONDS    sleep (fractions allowed); a kill or timeout test stops it here
//   --exit CODE        exit at once with CODE (without it the worker exits 0 after its last action)
//   --write-trace FILE copy FILE to the --trace path the supervisor gave and say so in a `profile`
//                      line, as a worker does after profiling (nothing when no --trace was given)
//   --write-memory KIND FILE  copy FILE (a memory snapshot pickle) to the --memory-snapshot path the
//                      supervisor gave and say so in a `memory_snapshot` line of KIND (step or
//                      out-of-memory), as a CUDA worker does after its timed steps or as it fails out
//                      of memory (nothing when no --memory-snapshot was given)
//   --trace-junk       write 1000 bytes to the --trace path plus ".tmp", as a profiler killed while it
//                      writes its trace leaves them (nothing when no --trace was given)
//   --stamp FILE       append "MS<tab>LANE" to FILE: the wall clock in milliseconds and the lane the
//                      supervisor named (STEPSCOPE_LANE; "-" without one), so a test of a sweep over
//                      several devices learns when each process ran where
//   --fail-on-lane L   when STEPSCOPE_LANE is L: say cuda-unavailable in an error line and exit 1, as a
//                      worker on a GPU that has gone does
//   --bundle HITS MISSES  as the Python worker does with a mega-cache bundle (start states): with
//                      STEPSCOPE_BUNDLE_SAVE set, write 1000 bytes there (the bundle it saves); with
//                      STEPSCOPE_BUNDLE_LOAD set, say in a `compile` line that loading it found HITS
//                      graphs and compiled MISSES (a missing file is an `internal` error line, exit 1)
//   --memory-boundary BASE PER LIMIT  a run whose step needs BASE + PER * batch MiB (the --config's
//                      batch) on a GPU of LIMIT MiB: past LIMIT an out-of-memory error line and exit 1,
//                      else the whole protocol of a run with that peak (the max-batch search's boundary)
//   --killed           end by SIGKILL, as the kernel's out-of-memory killer ends a worker (systems
//                      without SIGKILL abort instead; tests of it skip there)
//
// The real workers' own arguments, which the supervisor and the doctor append, are accepted
// wherever they stand: `--config JSON` (echoed or recorded above; an action that needs it fails with
// exit code 9 when it is missing, the way a worker refuses to start without it), `--doctor`,
// `--cuda-devices`, `--probe DEVICE` (the doctor's questions to the native worker: the answer is what
// the actions print), `--device NAME`, `--profile-steps K`, `--trace PATH` and
// `--memory-snapshot PATH`. Anything else is a
// mistake in the test: exit code 2.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif

namespace
{

struct Action {
    std::string name;
    std::vector<std::string> values;
};

// How many values each action takes.
int arity(const std::string &name)
{
    if (name == "--echo-config" || name == "--killed" || name == "--trace-junk")
        return 0;
    if (name == "--alternate" || name == "--fill" || name == "--bundle" || name == "--write-memory")
        return 2;
    if (name == "--memory-boundary")
        return 3;
    if (name == "--replay" || name == "--pace" || name == "--count" || name == "--first-exit" || name == "--stderr" ||
        name == "--env" || name == "--record" || name == "--sleep" || name == "--exit" || name == "--bytes" ||
        name == "--write-trace" || name == "--stamp" || name == "--fail-on-lane")
        return 1;
    return -1;
}

[[noreturn]] void fail(int code, const std::string &why)
{
    std::cerr << "stepscope-fake-worker: " << why << std::endl;
    std::exit(code);
}

struct State {
    std::optional<std::string> config;
    int paceMs = 0;
    long invocation = 0; // set by --count
    std::string envEchoes;
    std::string profileSteps, tracePath; // the supervisor's --profile-steps and --trace
    std::string memoryPath;              // and --memory-snapshot
};

const std::string &config(const State &s)
{
    if (!s.config)
        fail(9, "no --config JSON argument");
    return *s.config;
}

void replay(const std::string &path, const State &s)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(2, "cannot read " + path);
    std::string line;
    while (std::getline(in, line)) {
        if (s.paceMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(s.paceMs));
        // Byte for byte (a recording may end in a cut-off line, without its newline), and a flush per
        // line: the supervisor must see each line when it is written, as from a real worker.
        std::fwrite(line.data(), 1, line.size(), stdout);
        if (!in.eof())
            std::fputc('\n', stdout);
        std::fflush(stdout);
    }
}

long bumpCount(const std::string &path)
{
    long n = 0;
    if (std::ifstream in(path); in)
        in >> n;
    ++n;
    std::ofstream out(path, std::ios::trunc);
    out << n << '\n';
    if (!out)
        fail(2, "cannot write " + path);
    return n;
}

std::string envEcho(const std::string &name)
{
    const char *value = std::getenv(name.c_str());
    if (!value)
        return name + " unset";
    std::error_code ec;
    const bool folder = *value != '\0' && std::filesystem::is_directory(value, ec);
    return name + "=[" + value + "]" + (folder ? " (a folder)" : "");
}

std::uintmax_t folderBytes(const char *folder)
{
    std::uintmax_t bytes = 0;
    std::error_code ec;
    if (!folder || !std::filesystem::is_directory(folder, ec))
        return 0;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(folder, ec))
        if (entry.is_regular_file(ec))
            bytes += entry.file_size(ec);
    return bytes;
}

void fill(const std::string &name, long bytes)
{
    const char *folder = std::getenv(name.c_str());
    std::error_code ec;
    if (!folder || !std::filesystem::is_directory(folder, ec))
        fail(2, "--fill: " + name + " names no folder");
    for (int i = 0;; ++i) {
        const std::filesystem::path file = std::filesystem::path(folder) / ("entry-" + std::to_string(i));
        if (std::filesystem::exists(file, ec))
            continue;
        std::ofstream out(file, std::ios::binary);
        out << std::string(static_cast<std::size_t>(bytes), 'x');
        if (!out)
            fail(2, "cannot write " + file.string());
        return;
    }
}

int toInt(const std::string &text)
{
    try {
        return std::stoi(text);
    } catch (const std::exception &) {
        fail(2, "not a number: " + text);
    }
}

double toSeconds(const std::string &text)
{
    try {
        return std::stod(text);
    } catch (const std::exception &) {
        fail(2, "not a number: " + text);
    }
}

// A whole-number member of the --config JSON ("batch"), or `otherwise` when it is not there: the
// supervisor writes every field, compact, so a search for "key": is enough here.
long configNumber(const State &s, const std::string &key, long otherwise)
{
    const std::string &json = config(s);
    const auto at = json.find("\"" + key + "\":");
    return at == std::string::npos ? otherwise : std::strtol(json.c_str() + at + key.size() + 3, nullptr, 10);
}

void say(const std::string &line)
{
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void memoryBoundary(const Action &a, const State &s)
{
    const long batch = configNumber(s, "batch", 0);
    const double need = toSeconds(a.values[0]) + toSeconds(a.values[1]) * static_cast<double>(batch);
    const double limit = toSeconds(a.values[2]);
    say(R"({"type":"hello","protocol":1,"env":{"worker":"fake","gpu":"Fake GPU","gpu_memory_mib":")" + a.values[2] +
        R"("}})");
    say(R"({"type":"ready","setup_s":0.1})");
    if (need > limit) {
        say(R"({"type":"error","category":"out-of-memory","message":"CUDA out of memory at batch )" +
            std::to_string(batch) + R"(","detail":""})");
        std::exit(1);
    }
    say(R"({"type":"first_step","wall_s":0.01})");
    const long total = 1 + configNumber(s, "warmup_steps", 0) + configNumber(s, "steps", 1);
    say(R"({"type":"steps","first":1,"gpu_ms":[],"wall_ms":[10.0]})");
    for (long i = 2; i <= total; ++i)
        say(R"({"type":"steps","first":)" + std::to_string(i) + R"(,"gpu_ms":[1.0],"wall_ms":[1.0]})");
    const std::string bytes = std::to_string(static_cast<long long>(need * 1024 * 1024));
    say(R"({"type":"memory","peak_allocated":)" + bytes + R"(,"peak_reserved":)" + bytes + "}");
    say(R"({"type":"done","steps":)" + std::to_string(total) + R"(,"mean_wall_ms":1.0})");
}

void perform(const Action &a, State &s)
{
    const std::string &n = a.name;
    if (n == "--replay") {
        replay(a.values[0], s);
    } else if (n == "--pace") {
        s.paceMs = toInt(a.values[0]);
    } else if (n == "--count") {
        s.invocation = bumpCount(a.values[0]);
    } else if (n == "--first-exit") {
        if (s.invocation == 0)
            fail(2, "--first-exit needs an earlier --count");
        if (s.invocation == 1)
            std::exit(toInt(a.values[0]));
    } else if (n == "--alternate") {
        if (s.invocation == 0)
            fail(2, "--alternate needs an earlier --count");
        replay(a.values[s.invocation % 2 == 1 ? 0 : 1], s);
    } else if (n == "--stderr") {
        std::cerr << a.values[0] << std::endl;
    } else if (n == "--env") {
        const std::string echo = envEcho(a.values[0]);
        std::cerr << echo << std::endl;
        s.envEchoes += '\t' + echo;
    } else if (n == "--bytes") {
        const std::string echo =
            a.values[0] + " holds " + std::to_string(folderBytes(std::getenv(a.values[0].c_str()))) + " bytes";
        std::cerr << echo << std::endl;
        s.envEchoes += '\t' + echo;
    } else if (n == "--fill") {
        fill(a.values[0], toInt(a.values[1]));
    } else if (n == "--bundle") {
        if (const char *save = std::getenv("STEPSCOPE_BUNDLE_SAVE")) {
            std::ofstream out(save, std::ios::binary);
            out << std::string(1000, 'b');
        }
        if (const char *load = std::getenv("STEPSCOPE_BUNDLE_LOAD")) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(load, ec);
            if (ec) {
                const std::string line = R"({"type":"error","category":"internal","message":"the shipped bundle )" +
                                         std::string(load) + R"( is missing"})" + "\n";
                std::fwrite(line.data(), 1, line.size(), stdout);
                std::fflush(stdout);
                std::exit(1);
            }
            const std::string line = R"({"type":"compile","info":{"mode":"default","start":"shipped","bundle":{"path":")" +
                                     std::string(load) + R"(","bytes":)" + std::to_string(size) + R"(,"hits":)" +
                                     a.values[0] + R"(,"misses":)" + a.values[1] + R"(,"load_s":0.5}}})" + "\n";
            std::fwrite(line.data(), 1, line.size(), stdout);
            std::fflush(stdout);
        }
    } else if (n == "--write-trace") {
        if (s.tracePath.empty())
            return; // profiling is off for this run
        std::error_code error;
        std::filesystem::copy_file(a.values[0], s.tracePath, std::filesystem::copy_options::overwrite_existing, error);
        if (error)
            fail(2, "--write-trace: cannot copy " + a.values[0] + " to " + s.tracePath + ": " + error.message());
        const std::string line = R"({"type":"profile","steps":)" + s.profileSteps + R"(,"wall_ms":10.0,"trace":")" +
                                 s.tracePath + R"(","profiler_gflop":1.5})" + "\n";
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fflush(stdout);
    } else if (n == "--write-memory") {
        if (s.memoryPath.empty())
            return; // no snapshot asked for this run
        std::error_code error;
        std::filesystem::copy_file(a.values[1], s.memoryPath, std::filesystem::copy_options::overwrite_existing, error);
        if (error)
            fail(2, "--write-memory: cannot copy " + a.values[1] + " to " + s.memoryPath + ": " + error.message());
        const std::string line = R"({"type":"memory_snapshot","kind":")" + a.values[0] + R"(","snapshot":")" +
                                 s.memoryPath + R"("})" + "\n";
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fflush(stdout);
    } else if (n == "--trace-junk") {
        if (!s.tracePath.empty())
            std::ofstream(s.tracePath + ".tmp", std::ios::binary) << std::string(1000, '{');
    } else if (n == "--stamp") {
        const char *lane = std::getenv("STEPSCOPE_LANE");
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        std::ofstream out(a.values[0], std::ios::app);
        out << ms << '\t' << (lane ? lane : "-") << '\n';
        if (!out)
            fail(2, "cannot write " + a.values[0]);
    } else if (n == "--fail-on-lane") {
        const char *lane = std::getenv("STEPSCOPE_LANE");
        if (lane && a.values[0] == lane) {
            const std::string line = R"({"type":"error","category":"cuda-unavailable","message":"CUDA error: no )"
                                     R"(CUDA-capable device is detected on lane )" +
                                     a.values[0] + R"(","detail":""})" + "\n";
            std::fwrite(line.data(), 1, line.size(), stdout);
            std::fflush(stdout);
            std::exit(1);
        }
    } else if (n == "--memory-boundary") {
        memoryBoundary(a, s);
    } else if (n == "--echo-config") {
        std::cerr << config(s) << std::endl;
    } else if (n == "--record") {
        std::ofstream out(a.values[0], std::ios::app);
        out << config(s) << s.envEchoes << '\n';
        if (!out)
            fail(2, "cannot write " + a.values[0]);
    } else if (n == "--sleep") {
        std::this_thread::sleep_for(std::chrono::duration<double>(toSeconds(a.values[0])));
    } else if (n == "--exit") {
        std::exit(toInt(a.values[0]));
    } else if (n == "--killed") {
        std::fflush(nullptr);
#ifdef SIGKILL
        std::raise(SIGKILL);
#endif
        std::abort();
    }
}

} // namespace

int main(int argc, char **argv)
{
#ifdef _WIN32
    _setmode(_fileno(stdout), _O_BINARY); // a replay is byte for byte: no \r added before each \n
#endif
    State state;
    std::vector<Action> actions;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        // The real workers' arguments, in whatever place the caller appends them.
        if (arg == "--config" || arg == "--device" || arg == "--profile-steps" || arg == "--trace" ||
            arg == "--memory-snapshot" || arg == "--probe") {
            if (i + 1 >= argc)
                fail(2, arg + " needs a value");
            if (arg == "--config")
                state.config = argv[++i];
            else if (arg == "--profile-steps")
                state.profileSteps = argv[++i];
            else if (arg == "--trace")
                state.tracePath = argv[++i];
            else if (arg == "--memory-snapshot")
                state.memoryPath = argv[++i];
            else
                ++i;
            continue;
        }
        if (arg == "--doctor" || arg == "--cuda-devices")
            continue;
        const int count = arity(arg);
        if (count < 0)
            fail(2, "unknown option " + arg);
        if (i + count >= argc)
            fail(2, arg + " needs " + std::to_string(count) + " value(s)");
        Action a{arg, {}};
        for (int k = 0; k < count; ++k)
            a.values.emplace_back(argv[++i]);
        actions.push_back(std::move(a));
    }
    for (const Action &a : actions)
        perform(a, state);
    return 0;
}
