#include "cli.h"

#include "store/store.h"

#include <QCoreApplication>

#include <clocale>
#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // Qt sets the C library's locale from the environment; printf would then write decimal commas
    // into CSV, JSON and Markdown under de_DE. Widgets format through QLocale and are unaffected.
    std::setlocale(LC_NUMERIC, "C");
    QCoreApplication::setApplicationName("stepscope");
    QCoreApplication::setApplicationVersion(STEPSCOPE_VERSION);

    using namespace stepscope::cli;
    Options options;
    options.db = defaultDatabasePath();
    const QStringList args = app.arguments().mid(1);
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (options.command.isEmpty() && (a == "--help" || a == "-h" || a == "help")) {
            printUsage();
            return kOk;
        }
        if (options.command.isEmpty() && a == "--version") {
            std::printf("stepscope-cli %s\n", STEPSCOPE_VERSION);
            return kOk;
        }
        if (a == "--db" || a.startsWith("--db=")) {
            if (a == "--db" && i + 1 >= args.size()) {
                std::fprintf(stderr, "stepscope-cli: --db needs a file path\n");
                return kUsage;
            }
            options.db = a == "--db" ? args[++i] : a.mid(5);
            continue;
        }
        if (options.command.isEmpty() && !a.startsWith('-'))
            options.command = a;
        else if (options.command.isEmpty()) {
            std::fprintf(stderr, "stepscope-cli: unknown option '%s' before the command; try --help\n", qPrintable(a));
            return kUsage;
        } else
            options.raw << a;
    }
    const QStringList needDatabase{"run", "list", "show", "export"};
    if (options.db.isEmpty() && needDatabase.contains(options.command)) {
        std::fprintf(stderr, "stepscope-cli: no database path: HOME is not set (nor XDG_DATA_HOME), so there is no "
                             "default; pass --db FILE\n");
        return kUsage;
    }
    // Each command turns the store's refusals into exit 3 where it can say more; one that escapes
    // (the file deleted between two reads, say) still ends as a refusal, never as an abort.
    try {
        if (options.command == "run")
            return runCommand(options);
        if (options.command == "list")
            return listCommand(options);
        if (options.command == "show")
            return showCommand(options);
        if (options.command == "export")
            return exportCommand(options);
        if (options.command == "doctor")
            return doctorCommand(options);
    } catch (const stepscope::store::StoreError &e) {
        std::fprintf(stderr, "stepscope-cli: %s\n", e.what());
        return kDatabase;
    }
    if (options.command.isEmpty())
        std::fprintf(stderr, "stepscope-cli: no command given; try 'stepscope-cli run' or --help\n");
    else
        std::fprintf(stderr, "stepscope-cli: unknown command '%s'; commands: run, list, show, export, doctor\n",
                     qPrintable(options.command));
    return kUsage;
}
