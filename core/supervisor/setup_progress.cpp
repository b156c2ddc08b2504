#include "supervisor/setup_progress.h"

#include <QRegularExpression>

#include <cmath>

namespace stepscope::supervisor
{
namespace
{

// The rate is taken over this many recent milliseconds: long enough to smooth the once-a-second
// polls, short enough to follow a connection that speeds up or stalls.
constexpr qint64 kRateWindowMs = 8000;

QString packageOfFile(const QString &file)
{
    // Wheel and sdist names start with the distribution name up to the first '-'.
    return file.section('-', 0, 0);
}

} // namespace

const char *toString(SetupPhase phase)
{
    switch (phase) {
    case SetupPhase::CreatingEnvironment:
        return "creating-environment";
    case SetupPhase::Resolving:
        return "resolving";
    case SetupPhase::Downloading:
        return "downloading";
    case SetupPhase::Installing:
        return "installing";
    case SetupPhase::Checking:
        return "checking";
    }
    return "?";
}

std::optional<qint64> parsePipSize(const QString &text)
{
    static const QRegularExpression size("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(bytes|kB|MB|GB|TB)\\s*$");
    const auto m = size.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const double value = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    const double scale = unit == "kB" ? 1e3 : unit == "MB" ? 1e6 : unit == "GB" ? 1e9 : unit == "TB" ? 1e12 : 1;
    return qint64(std::llround(value * scale));
}

bool pipHasRawProgress(const QString &versionLine)
{
    static const QRegularExpression version("^pip ([0-9]+)\\.([0-9]+)");
    const auto m = version.match(versionLine.trimmed());
    if (!m.hasMatch())
        return false;
    const int major = m.captured(1).toInt(), minor = m.captured(2).toInt();
    return major > 24 || (major == 24 && minor >= 1);
}

SetupProgressReader::SetupProgressReader()
{
    clock_.start();
}

void SetupProgressReader::setPhase(SetupPhase phase)
{
    if (phase != SetupPhase::Downloading && progress_.phase == SetupPhase::Downloading)
        finishCurrentFile();
    progress_.phase = phase;
}

bool SetupProgressReader::readLine(const QString &line)
{
    // pip shows a PyPI file by its name and any other index's by its whole URL: the name is the
    // last path segment either way.
    static const QRegularExpression downloading("^\\s*Downloading (\\S+) \\((.+)\\)\\s*$");
    static const QRegularExpression raw("^Progress ([0-9]+) of ([0-9]+)\\s*$");
    static const QRegularExpression collecting("^\\s*Collecting ([A-Za-z0-9_.\\-]+)");
    if (const auto m = raw.match(line); m.hasMatch()) {
        raw_ = true;
        const qint64 total = m.captured(2).toLongLong();
        if (total > 0)
            progress_.fileTotal = total;
        setFileBytes(m.captured(1).toLongLong());
        return true;
    }
    if (const auto m = downloading.match(line); m.hasMatch()) {
        if (progress_.phase == SetupPhase::Downloading)
            finishCurrentFile();
        QString file = m.captured(1).section('#', 0, 0).section('?', 0, 0);
        file = file.section('/', -1);
        progress_.phase = SetupPhase::Downloading;
        progress_.file = file;
        progress_.package = packageOfFile(file);
        progress_.fileBytes = 0;
        progress_.fileTotal = parsePipSize(m.captured(2)).value_or(-1);
        progress_.secondsLeft = -1;
        if (progress_.fileTotal > 0)
            progress_.bytesAnnounced += progress_.fileTotal;
        ++progress_.files;
        return true;
    }
    if (const auto m = collecting.match(line); m.hasMatch()) {
        setPhase(SetupPhase::Resolving);
        progress_.package = m.captured(1).section(QRegularExpression("[=<>!~\\[;]"), 0, 0);
        return true;
    }
    if (line.startsWith("Installing collected packages")) {
        setPhase(SetupPhase::Installing);
        progress_.package.clear();
        return true;
    }
    return false;
}

void SetupProgressReader::observeFileSize(qint64 bytes)
{
    if (progress_.phase != SetupPhase::Downloading)
        return;
    if (raw_)
        updateRate(); // pip's own figure stands; a stall still shows once pip stops saying more
    else
        setFileBytes(bytes);
}

void SetupProgressReader::setFileBytes(qint64 bytes)
{
    progress_.fileBytes = std::max<qint64>(0, bytes);
    if (progress_.fileTotal > 0)
        progress_.fileBytes = std::min(progress_.fileBytes, progress_.fileTotal);
    progress_.bytesDone = finishedBytes_ + progress_.fileBytes;
    updateRate();
}

void SetupProgressReader::finishCurrentFile()
{
    // A file pip moved on from is whole: the poll may have missed its last second.
    if (progress_.fileTotal > 0)
        progress_.fileBytes = progress_.fileTotal;
    finishedBytes_ += progress_.fileBytes;
    progress_.bytesDone = finishedBytes_;
    progress_.fileBytes = 0;
    progress_.fileTotal = -1;
    progress_.secondsLeft = -1;
}

void SetupProgressReader::updateRate()
{
    const qint64 now = clock_.elapsed();
    samples_.push_back({now, progress_.bytesDone});
    while (samples_.size() > 2 && now - samples_.front().ms > kRateWindowMs)
        samples_.pop_front();
    const Sample &first = samples_.front();
    // A second of samples at least: a rate over a few milliseconds says nothing.
    if (now - first.ms < 1000)
        return;
    if (progress_.bytesDone <= first.bytes) { // nothing for the whole window: stalled
        progress_.bytesPerSecond = 0;
        progress_.secondsLeft = -1;
        return;
    }
    progress_.bytesPerSecond = double(progress_.bytesDone - first.bytes) * 1000.0 / double(now - first.ms);
    progress_.secondsLeft =
        progress_.fileTotal > 0
            ? qint64(std::ceil(double(progress_.fileTotal - progress_.fileBytes) / progress_.bytesPerSecond))
            : -1;
}

} // namespace stepscope::supervisor
