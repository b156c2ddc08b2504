// `stepscope-cli setup`: the CLI's adapter over the PyTorch setup job (supervisor/python_setup.h).
// It prints the job's typed progress as one redrawn line on a terminal (whole lines elsewhere), turns
// Ctrl-C into the job's cancel, and says where the environment is and what to run next.
#include "cli.h"
#include "cli_options.h"
#include "interrupts.h"
#include "status_line.h"

#include "supervisor/managed_python.h"
#include "supervisor/python_setup.h"

#include <QCoreApplication>

#include <cstdio>
#include <optional>

namespace stepscope::cli
{
namespace
{

QString percent(qint64 done, qint64 total)
{
    return total > 0 ? QString::number(int(100 * done / total)) + "%" : QString();
}

// "downloading torch-2.11.0-...whl: 412.3 MB of 888.0 MB (46%), 1 min 20 s left"
QString progressText(const supervisor::SetupProgress &p)
{
    using supervisor::SetupPhase;
    switch (p.phase) {
    case SetupPhase::CreatingEnvironment:
        return "creating the Python environment";
    case SetupPhase::Resolving:
        return p.package.isEmpty() ? QString("looking up the packages") : "looking up " + p.package;
    case SetupPhase::Downloading: {
        QString text = "downloading " + p.file + ": " + supervisor::byteText(p.fileBytes);
        if (p.fileTotal > 0)
            text += " of " + supervisor::byteText(p.fileTotal) + " (" + percent(p.fileBytes, p.fileTotal) + ")";
        if (p.secondsLeft >= 0)
            text += ", " + phaseSeconds(double(p.secondsLeft)) + " left";
        if (p.files > 1)
            text += QString(" [file %1, %2 in all]").arg(p.files).arg(supervisor::byteText(p.bytesDone));
        return text;
    }
    case SetupPhase::Installing:
        return "installing (unpacking " + supervisor::byteText(p.bytesAnnounced) + " of downloads)";
    case SetupPhase::Checking:
        return "checking that torch and torchvision import";
    }
    return {};
}

// Off a terminal, progress is whole lines: each phase, each download as it starts, and every
// quarter of a download, so that a log shows the setup moving without a line a second.
class PlainProgress
{
  public:
    std::optional<QString> line(const supervisor::SetupProgress &p)
    {
        const int quarter = p.fileTotal > 0 ? int(4 * p.fileBytes / p.fileTotal) : 0;
        const bool news = p.phase != phase_ || p.files != files_ || p.package != package_ ||
                          (p.phase == supervisor::SetupPhase::Downloading && quarter > quarter_);
        phase_ = p.phase;
        files_ = p.files;
        package_ = p.package;
        quarter_ = quarter;
        if (!news)
            return std::nullopt;
        return progressText(p);
    }

  private:
    supervisor::SetupPhase phase_ = supervisor::SetupPhase::Checking;
    int files_ = -1, quarter_ = -1;
    QString package_ = "-";
};

// An option given empty ("--index-url ''", a shell variable that was not set) is a slip: taken as
// not given, an empty index would quietly mean PyPI and gigabytes of download, an empty Python
// python3 on PATH. Returns the complaint, or nothing.
std::optional<QString> emptyValue(const CommandLine &line)
{
    const std::pair<const char *, const char *> wanted[] = {
        {"index-url", "give the index's URL (--index-url https://download.pytorch.org/whl/cpu), or leave --index-url "
                      "out for pip's own index (PyPI)"},
        {"find-links", "give a folder of wheels (--find-links ~/wheels), or leave --find-links out"},
        {"python", "give the path of a Python 3 (--python /usr/bin/python3), or leave --python out for python3 on "
                   "PATH"},
    };
    for (const auto &[name, what] : wanted)
        if (line.isSet(name) && line.value(name).trimmed().isEmpty())
            return QString("stepscope-cli setup: --%1 is empty; %2").arg(name, what);
    return std::nullopt;
}

} // namespace

int setupCommand(const Options &, const CommandLine &line)
{
    if (const auto complaint = emptyValue(line)) {
        printError(*complaint);
        return kUsage;
    }
    const QString dir = supervisor::managedEnvironmentDir();
    if (dir.isEmpty()) {
        printError("stepscope-cli setup: there is no folder for the Python environment: HOME is not set; set "
                   "STEPSCOPE_VENV to the folder it should go to");
        return kUsage;
    }
    const QString versions =
        "torch " + supervisor::pinnedTorchVersion() + " and torchvision " + supervisor::pinnedTorchvisionVersion();

    supervisor::SetupOptions options;
    options.environmentDir = dir;
    options.basePython = line.value("python");
    options.indexUrl = line.value("index-url");
    options.findLinks = line.value("find-links");
    options.noIndex = line.isSet("no-index");
    if (options.noIndex && options.findLinks.isEmpty()) {
        printError("stepscope-cli setup: --no-index needs --find-links DIR (a folder of wheels); see "
                   "'stepscope-cli setup --help'");
        return kUsage;
    }
    if (supervisor::managedEnvironmentReady()) {
        std::printf("PyTorch is already set up: %s in %s\n", qPrintable(versions), qPrintable(dir));
        std::printf("next: stepscope-cli doctor (checks it), then stepscope-cli run\n");
        return kOk;
    }

    printError("stepscope-cli setup: installing " + versions + " into " + dir);
    supervisor::PythonSetup setup;
    StatusLine status;
    const ScopedMessageHandler ownLines(status);
    PlainProgress plain;
    int code = kOk;
    QObject::connect(&setup, &supervisor::PythonSetup::progress, [&](const supervisor::SetupProgress &p) {
        // On a terminal a download redraws one line; everything else, and elsewhere, is whole lines.
        if (status.onTerminal() && p.phase == supervisor::SetupPhase::Downloading) {
            plain.line(p);
            status.progress(progressText(p));
        } else if (const auto news = plain.line(p)) {
            status.message(*news);
        }
    });
    QObject::connect(&setup, &supervisor::PythonSetup::finished, [&](const supervisor::SetupResult &r) {
        status.clear();
        std::printf("PyTorch is set up: torch %s and torchvision %s in %s\n", qPrintable(r.torchVersion),
                    qPrintable(r.torchvisionVersion), qPrintable(r.environmentDir));
        std::printf("next: stepscope-cli doctor (checks it), then stepscope-cli run; the dashboard finds it too\n");
        QCoreApplication::exit(0);
    });
    QObject::connect(&setup, &supervisor::PythonSetup::failed, [&](const supervisor::SetupFailure &f) {
        status.message("stepscope-cli setup: " + f.message);
        if (!f.fix.isEmpty())
            status.message("fix: " + f.fix);
        if (!f.detail.isEmpty() && f.error != supervisor::SetupError::Cancelled)
            status.message("last lines:\n" + f.detail);
        code = f.error == supervisor::SetupError::Cancelled ? kCancelled : kRunsFailed;
        QCoreApplication::exit(0);
    });

    // As `run`: every interrupt cancels. pip runs in a process group of its own, so a terminal's
    // Ctrl-C reaches this process alone and the cancel kills pip's group (a kill -9 of this process
    // leaves that to the job's watchdog).
    const InterruptWatch interrupts([&] {
        status.message("stepscope-cli setup: interrupted: stopping pip");
        setup.cancel();
    });

    setup.start(options);
    QCoreApplication::exec();
    return code;
}

} // namespace stepscope::cli
