#pragma once
// What the Python worker's --doctor says about this machine, one row per item (python, torch,
// Triton, the C++ compiler, a tiny torch.compile, ...), each ok / warn / fail with its fix, read
// by one parser for both front-ends (`stepscope-cli doctor`, the dashboard's Environment page):
// an unknown status is a fail, and a doctor that says nothing, or stops without saying why, is a
// fail row of its own with the end of its log.
#include "supervisor/torch_location.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace stepscope::supervisor
{

// How long --doctor may take: its tiny compile takes seconds, a cold CPU import of torch more.
inline constexpr int kDoctorLimitMs = 180 * 1000;

struct DoctorItem {
    QString item;
    QString status; // "ok", "warn" or "fail"
    QString value;
    QString fix;
};

// One line of the worker's stdout: a doctor item, or nothing for any other line.
std::optional<DoctorItem> parseDoctorLine(const QByteArray &line);

// The closing verdict once the process is over, given the items it printed. Empty when they say
// it all; otherwise a fail row naming what went wrong with the end of its log.
struct DoctorExit {
    bool started = true;
    bool timedOut = false;
    bool crashed = false; // killed by a signal
    int exitCode = 0;
    QString startError; // QProcess's errorString() when it did not start
    QString logTail;    // the end of its stderr
    QString command;    // the command line, for the fix
};
std::optional<DoctorItem> doctorVerdict(const QList<DoctorItem> &items, const DoctorExit &exit);

// What Stepscope itself found before asking any worker (torch_location.h): the "python" row (which
// interpreter, and why that one) and, when there is one, the "libtorch" row (the lib/ folder the
// native worker loads, and torch's version); a fail row with the fix when they are not usable.
QList<DoctorItem> torchDoctorItems(const TorchLocation &torch);

} // namespace stepscope::supervisor
