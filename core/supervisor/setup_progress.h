#pragma once
// How far a PyTorch setup (python_setup.h) is, read from what pip says. pip has no machine-readable
// progress before 24.1, and Debian 12's venv brings pip 23.2, so two sources are merged:
//  - pip's own lines: "Downloading torch-2.11.0-...whl (888.0 MB)" (every pip: the file and its
//    size), "Progress 1310720 of 4195748" (pip >= 24.1 with --progress-bar raw: exact bytes);
//  - the size of the file pip downloads into the private TMPDIR setup gives it, polled once a
//    second, for a pip without the raw bar.
// Plain bookkeeping, no processes: tests feed it recorded lines.
#include <QElapsedTimer>
#include <QString>
#include <QtGlobal>

#include <deque>
#include <optional>

namespace stepscope::supervisor
{

enum class SetupPhase {
    CreatingEnvironment, // python3 -m venv
    Resolving,           // pip: "Collecting torch==..."
    Downloading,         // pip: "Downloading NAME (SIZE)"
    Installing,          // pip: "Installing collected packages"
    Checking,            // importing torch and torchvision at their pins
};
const char *toString(SetupPhase phase); // "creating-environment", ... for logs and tests

struct SetupProgress {
    SetupPhase phase = SetupPhase::CreatingEnvironment;
    QString package;           // the distribution being collected or downloaded ("torch"); may be empty
    QString file;              // Downloading: the file's name
    qint64 fileBytes = 0;      // Downloading: bytes of `file` so far
    qint64 fileTotal = -1;     // Downloading: its size; < 0 while unknown
    qint64 bytesDone = 0;      // every download of this setup so far
    qint64 bytesAnnounced = 0; // the sizes pip announced so far (it announces each file as it starts it)
    int files = 0;             // downloads started so far
    qint64 secondsLeft = -1;   // Downloading: the current file's rest at the recent rate; < 0 while unknown
    double bytesPerSecond = 0; // the recent rate; 0 while unknown
};

// "888.0 MB", "1.4 kB", "123 bytes" (pip's format_size, decimal units) in bytes; none otherwise.
std::optional<qint64> parsePipSize(const QString &text);
// Whether this pip (its `--version` line: "pip 23.2.1 from ...") has --progress-bar raw (24.1+).
bool pipHasRawProgress(const QString &versionLine);

class SetupProgressReader
{
  public:
    SetupProgressReader();
    // One line of pip's standard output. True when the progress changed.
    bool readLine(const QString &line);
    // The size of the file being downloaded, as polled. Once pip reports raw progress the size is
    // ignored and the call only moves the rate's clock on (a stall shows as one).
    void observeFileSize(qint64 bytes);
    void setPhase(SetupPhase phase);
    const SetupProgress &progress() const { return progress_; }
    bool rawProgressSeen() const { return raw_; }

  private:
    void finishCurrentFile();
    void setFileBytes(qint64 bytes);
    void updateRate();

    SetupProgress progress_;
    qint64 finishedBytes_ = 0; // downloads done before the current one
    bool raw_ = false;
    QElapsedTimer clock_;
    struct Sample {
        qint64 ms, bytes;
    };
    std::deque<Sample> samples_; // the last seconds of bytesDone, for the rate
};

} // namespace stepscope::supervisor
