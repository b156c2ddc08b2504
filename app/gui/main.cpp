// stepscope: the dashboard.
//   stepscope [--db FILE] [--start] [--sweep ID] [--compare A,B [--compare-db FILE]] [--screenshots DIR]
//   stepscope [--db FILE] [--sweep ID | --compare A,B [--compare-db FILE]] --report FILE.pdf|.html|.md|.csv
//                                                                             (no window)
#include "common/blocking_call.h"
#include "controller/run_controller.h"
#include "controller/settings_location.h"
#include "pages/compare_page.h"
#include "report_command.h"
#include "widgets/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSettings>
#include <QTimer>

#include <clocale>
#include <cstdio>
#include <string>
#include <utility>

int main(int argc, char **argv)
{
    QCoreApplication::setApplicationName("stepscope");
    QCoreApplication::setOrganizationName("stepscope");
    QCoreApplication::setApplicationVersion(STEPSCOPE_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Which PyTorch training-step optimizations pay off on this GPU");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption db("db", "Measurements database (default: the last one, else the user data folder).", "file");
    QCommandLineOption start("start", "Start the default sweep for this machine at once.");
    QCommandLineOption sweep("sweep", "Show this sweep of the database (with --report: report it).", "id");
    QCommandLineOption compare("compare", "Compare two sweeps of the database (A,B).", "a,b");
    QCommandLineOption compareDb("compare-db", "Take sweep B of --compare from this database, read-only.", "file");
    QCommandLineOption shots("screenshots", "Save a PNG of every view into DIR (after --start finishes) and quit.",
                             "dir");
    QCommandLineOption report("report",
                              "Write the report of the sweep (--sweep, else the latest), or of the comparison "
                              "(--compare), to FILE without opening a window, as the File menu's exports do (.pdf, "
                              ".html, .md or .csv), and exit.",
                              "file");
    parser.addOptions({db, start, sweep, compare, compareDb, shots, report});

    // --help and --version need no display, and a QApplication aborts without one: they are read
    // from argv first and answered with a QCoreApplication, which gives the program's name. Errors
    // are left to the parse below, once the QApplication has taken its own options (-platform ...).
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    parser.parse(arguments);
    if (parser.isSet("help") || parser.isSet("version")) {
        QCoreApplication info(argc, argv);
        if (parser.isSet("version"))
            parser.showVersion();
        parser.showHelp(0);
    }

    // A report needs fonts and widgets to draw its charts, not a display: the offscreen platform
    // makes it over ssh as on a desktop, and no window shows.
    const bool reportOnly = parser.isSet(report);
    if (reportOnly)
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // The installed desktop entry's name (installer/CMakeLists.txt, STEPSCOPE_APP_ID): a Wayland
    // compositor matches the window to it for the icon and the launcher.
    QGuiApplication::setDesktopFileName("io.github.stepscope.Stepscope");
    // Qt sets the C library's locale from the environment; printf would then write decimal commas
    // into CSV, JSON and Markdown under de_DE. Widgets format through QLocale and are unaffected.
    std::setlocale(LC_NUMERIC, "C");
    QApplication::setWindowIcon(QIcon(":/icons/stepscope.svg"));
    parser.process(app);
    // Without a home folder: settings in the runtime folder, and no default database (the status
    // bar says both, and File › Open picks a file).
    stepscope::ui::keepSettingsOutOfRoot();
    const QString path =
        parser.isSet(db)
            ? parser.value(db)
            : QSettings().value("database", stepscope::ui::RunController::defaultDatabasePath()).toString();

    if (reportOnly) {
        // One report: a sweep's (--sweep, else the latest) or a comparison's (--compare).
        const auto refuse = [](const char *why) {
            std::fprintf(stderr, "stepscope: --report %s\n", why);
            return 2;
        };
        if (parser.isSet(start) || parser.isSet(shots))
            return refuse("writes a stored sweep's report and exits; leave out --start and --screenshots.");
        if (parser.isSet(compare) && parser.isSet(sweep))
            return refuse("writes one report: --sweep for a sweep's, or --compare A,B for a comparison's, not both.");
        if (parser.isSet(compareDb) && !parser.isSet(compare))
            return refuse("with --compare-db needs --compare A,B (sweep B is taken from that file).");
        if (parser.isSet(compare))
            return writeComparisonReportCommand(path, parser.value(compare), parser.value(compareDb),
                                                parser.value(report));
        return writeReportCommand(path, parser.value(sweep), parser.value(report));
    }

    // From here on this thread is the UI thread: code that says it is about to wait (a Python started,
    // nvidia-smi, a folder scanned: common/blocking_call.h) should not run on it. A freeze is better
    // than a crash for a user, so it is logged; the UI tests fail on it instead.
    stepscope::forbidBlockingOnThisThread([](std::string_view what) {
        qWarning("stepscope: the UI thread waits for %s; the window does not answer meanwhile",
                 std::string(what).c_str());
    });
    stepscope::ui::MainWindow window;
    // The window fits itself, frame included, to the screen's available area when shown. Screenshots
    // show it as large as the screen (issue 35.4: the layout at 1920x1080 is the maximized one).
    if (parser.isSet(shots))
        window.showMaximized();
    else
        window.show();
    // The database opens and the devices are probed at the same time, off the UI thread; what the
    // command line asks for runs once both are done.
    bool probed = false;
    bool databaseDone = !window.openDatabase(path);
    const bool opened = !databaseDone;

    // Screenshots wait for what the views show to be read and computed.
    auto screenshotsAndQuit = [&] {
        if (!parser.isSet(shots))
            return;
        auto take = [&] {
            QString error;
            if (!window.saveScreenshots(parser.value(shots), &error)) {
                std::fprintf(stderr, "stepscope: %s\n", qPrintable(error));
                QApplication::exit(1);
                return;
            }
            QApplication::quit();
        };
        if (!window.isBusy()) {
            QTimer::singleShot(300, &window, take);
            return;
        }
        QObject::connect(
            &window, &stepscope::ui::MainWindow::busyChanged, &window,
            [&, take](bool busy) {
                if (!busy)
                    QTimer::singleShot(300, &window, take);
            },
            Qt::SingleShotConnection);
    };
    QObject::connect(&window, &stepscope::ui::MainWindow::sweepFinished, &window,
                     [&](qint64, bool) { QTimer::singleShot(200, &window, screenshotsAndQuit); });

    bool startedUp = false;
    auto startup = [&] {
        if (!probed || !databaseDone || std::exchange(startedUp, true))
            return;
        if (parser.isSet(compare)) {
            const QStringList ab = parser.value(compare).split(',');
            if (ab.size() == 2 && window.compareSweeps(ab[0].toLongLong(), ab[1].toLongLong()) &&
                parser.isSet(compareDb))
                window.comparePage()->compare({{}, ab[0].toLongLong()}, {parser.value(compareDb), ab[1].toLongLong()});
        }
        if (parser.isSet(sweep))
            window.showSweep(parser.value(sweep).toLongLong());
        else if (const qint64 last = QSettings().value("lastSweep").toLongLong(); last > 0 && !parser.isSet(start))
            window.showSweep(last);
        if (opened && parser.isSet(start))
            window.startSweep();
        else
            QTimer::singleShot(0, &window, screenshotsAndQuit);
    };
    QObject::connect(&window, &stepscope::ui::MainWindow::databaseOpened, &window, [&] {
        databaseDone = true;
        startup();
    });
    QObject::connect(window.controller(), &stepscope::ui::RunController::databaseRefused, &window, [&] {
        databaseDone = true;
        startup();
    });
    window.detectDevices([&] {
        probed = true;
        startup();
    });
    return QApplication::exec();
}
