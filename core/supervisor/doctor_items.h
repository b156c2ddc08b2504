#pragma once
// The doctor's rows (doctor_service.h runs it for both front-ends): one item each (python, the native
// worker, torch, Triton, the C++ compiler, a tiny torch.compile, ...), ok / warn / fail with its fix.
// The Python worker's --doctor lines are read by one parser: an unknown status is a fail, and a
// doctor that says nothing, or stops without saying why, is a fail row of its own with the end of
// its log.
#include "supervisor/process_run.h"
#include "supervisor/torch_location.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace stepscope::supervisor
{

// How long --doctor may take: its tiny compile takes seconds, a cold CPU import of torch more.
inline constexpr int kDoctorLimitMs = 180 * 1000;

enum class DoctorStatus { Ok, Warn, Fail };
// "ok", "warn", "fail": the words of the worker's JSON and of the CLI's table, mapped here only.
const char *toString(DoctorStatus status);
// Any other word is Fail: a status the worker made up is no reason to pass.
DoctorStatus doctorStatusFromString(const QString &word);

struct DoctorItem {
    QString item;
    DoctorStatus status = DoctorStatus::Fail;
    QString value;
    QString fix;
};

// How many of `items` stand at `status`.
int countOf(const QList<DoctorItem> &items, DoctorStatus status);

// One line of the worker's stdout: a doctor item, or nothing for any other line.
std::optional<DoctorItem> parseDoctorLine(const QByteArray &line);

// The closing verdict once `--doctor` is over, given the items it printed. Empty when they say it
// all; otherwise a fail row naming what went wrong with the end of its log.
std::optional<DoctorItem> doctorVerdict(const QList<DoctorItem> &items, const ProcessRun &run);

// What Stepscope itself found before asking any worker (torch_location.h): the "python" row (which
// interpreter, and why that one) and, when there is one, the "libtorch" row (the lib/ folder the
// native worker loads, and torch's version); a fail row with the fix when they are not usable.
QList<DoctorItem> torchDoctorItems(const TorchLocation &torch);

} // namespace stepscope::supervisor
