#include "cli.h"

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
    if (options.command.isEmpty())
        std::fprintf(stderr, "stepscope-cli: no command given; try 'stepscope-cli run' or --help\n");
    else
        std::fprintf(stderr, "stepscope-cli: unknown command '%s'; commands: run, list, show, export, doctor\n",
                     qPrintable(options.command));
    return kUsage;
}
