#include "cli.h"
#include "cli_options.h"

#include "store/database_files.h"
#include "store/store.h"

#include <QCoreApplication>

#include <algorithm>
#include <cerrno>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstring>

using namespace stepscope::cli;

namespace
{

void print(const QString &text)
{
    std::fputs(text.toLocal8Bit().constData(), stdout);
}

// `help [COMMAND]`, `completion bash`, `man`: they print, and need no database.
int printCommand(const QString &command, const CommandLine &line, const std::vector<CommandSpec> &commands,
                 const HelpDefaults &defaults)
{
    const QString argument = line.positionalArguments().value(0);
    if (command == "help") {
        if (argument.isEmpty()) {
            print(programHelp(defaults));
            return kOk;
        }
        const auto it =
            std::find_if(commands.begin(), commands.end(), [&](const CommandSpec &c) { return c.name == argument; });
        if (it == commands.end()) {
            std::fprintf(stderr, "stepscope-cli help: no command '%s'; see 'stepscope-cli --help'\n",
                         qPrintable(argument));
            return kUsage;
        }
        print(commandHelp(*it, defaults));
        return kOk;
    }
    if (command == "completion") {
        if (argument != "bash") {
            std::fprintf(stderr, "stepscope-cli completion: give the shell: 'stepscope-cli completion bash'\n");
            return kUsage;
        }
        print(bashCompletion());
        return kOk;
    }
    print(manPage());
    return kOk;
}

// What was printed must have reached standard output: a full disk or /dev/full fails a write (or
// the last flush) without a word, and an export that is cut short must not exit 0.
int finishStandardOutput(int code)
{
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout))
        return code;
    const int error = errno;
    std::fprintf(stderr, "stepscope-cli: could not write to standard output (%s): what it holds is incomplete%s\n",
                 error ? std::strerror(error) : "a write failed",
                 error == ENOSPC ? "; free some space or write with --out FILE elsewhere" : "");
    return kDatabase;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
#ifdef SIGXFSZ
    // Past a file-size limit (ulimit -f) a write fails with EFBIG, which the store names, instead of
    // the kernel ending the process without a word.
    std::signal(SIGXFSZ, SIG_IGN);
#endif
    // Qt sets the C library's locale from the environment; printf would then write decimal commas
    // into CSV, JSON and Markdown under de_DE. Widgets format through QLocale and are unaffected.
    std::setlocale(LC_NUMERIC, "C");
    QCoreApplication::setApplicationName("stepscope");
    QCoreApplication::setApplicationVersion(STEPSCOPE_VERSION);

    // The program's own options (--db, --help, --version) come before the command; the command's
    // parser takes the rest, --db and --help included.
    const HelpDefaults defaults = machineDefaults();
    CommandLine program(programSpec(defaults), defaults);
    int code = kOk;
    // --help prints, then the parse says stop: what it printed must have reached standard output too.
    if (!program.parse(app.arguments().mid(1), code))
        return finishStandardOutput(code);
    if (program.isSet("version")) {
        std::printf("stepscope-cli %s\n", STEPSCOPE_VERSION);
        return finishStandardOutput(kOk);
    }
    QStringList arguments = program.positionalArguments();
    if (arguments.isEmpty()) {
        std::fprintf(stderr, "stepscope-cli: no command given; try 'stepscope-cli run' or --help\n");
        return kUsage;
    }
    Options options;
    options.command = arguments.takeFirst();
    const auto commands = commandSpecs(defaults);
    const auto spec =
        std::find_if(commands.begin(), commands.end(), [&](const CommandSpec &c) { return c.name == options.command; });
    if (spec == commands.end()) {
        QStringList names;
        for (const auto &c : commands)
            names << c.name;
        std::fprintf(stderr, "stepscope-cli: unknown command '%s'; commands: %s\n", qPrintable(options.command),
                     qPrintable(names.join(", ")));
        return kUsage;
    }
    CommandLine line(*spec, defaults);
    if (!line.parse(arguments, code))
        return finishStandardOutput(code);
    options.db = line.isSet("db")      ? line.value("db")
                 : program.isSet("db") ? program.value("db")
                                       : QString::fromStdString(stepscope::store::defaultDatabasePath());
    if (options.db.isEmpty() && spec->needsDatabase && (line.isSet("db") || program.isSet("db"))) {
        std::fprintf(stderr, "stepscope-cli: --db is empty; give the path of a database file\n");
        return kUsage;
    }
    if (options.db.isEmpty() && spec->needsDatabase) {
        std::fprintf(stderr, "stepscope-cli: no database path: HOME is not set (nor XDG_DATA_HOME), so there is no "
                             "default; pass --db FILE\n");
        return kUsage;
    }
    // Each command turns the store's refusals into exit 3 where it can say more; one that escapes
    // (the file deleted between two reads, say) still ends as a refusal, never as an abort.
    const auto dispatch = [&]() -> int {
        try {
            if (options.command == "run")
                return runCommand(options, line);
            if (options.command == "list")
                return listCommand(options, line);
            if (options.command == "show")
                return showCommand(options, line);
            if (options.command == "export")
                return exportCommand(options, line);
            if (options.command == "compare")
                return compareCommand(options, line);
            if (options.command == "check")
                return checkCommand(options, line);
            if (options.command == "doctor")
                return doctorCommand(options, line);
            if (options.command == "models")
                return modelsCommand(options, line);
            if (options.command == "why")
                return whyCommand(options, line);
            if (options.command == "setup")
                return setupCommand(options, line);
        } catch (const stepscope::store::StoreError &e) {
            std::fprintf(stderr, "stepscope-cli: %s\n", qPrintable(storeMessage(e.what())));
            return kDatabase;
        }
        return printCommand(options.command, line, commands, defaults);
    };
    return finishStandardOutput(dispatch());
}
