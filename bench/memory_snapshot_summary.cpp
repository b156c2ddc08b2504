// memory_snapshot_summary FILE.pickle: prints Stepscope's summary of a CUDA memory snapshot
// (core/profile/memory_timeline.h) as the stored JSON, so that a script can hold it against the
// figures plain PyTorch gives (bench/memory_timeline_check.py). Exits 1 with the reader's problem.
#include "profile/memory_timeline.h"

#include <QFile>
#include <QJsonDocument>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: memory_snapshot_summary FILE.pickle\n");
        return 2;
    }
    QFile file(QString::fromLocal8Bit(argv[1]));
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "memory_snapshot_summary: cannot read %s\n", argv[1]);
        return 1;
    }
    const QByteArray pickle = file.readAll();
    stepscope::profile::StoredMemory stored;
    std::string problem;
    stored.timeline = stepscope::profile::summarizeSnapshot(
        std::string_view(pickle.constData(), static_cast<std::size_t>(pickle.size())), problem);
    if (!stored.timeline) {
        std::fprintf(stderr, "memory_snapshot_summary: %s\n", problem.c_str());
        return 1;
    }
    std::printf("%s\n",
                QJsonDocument(stepscope::profile::toJsonObject(stored)).toJson(QJsonDocument::Compact).constData());
    return 0;
}
