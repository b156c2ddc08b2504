// stepscope-config-schema: writes the configuration table (core/config/config_table.cpp) as the JSON
// file the Python worker reads, so that the worker has no table of its own. Run by the build:
//
//   stepscope-config-schema OUT.json
#include "config/config_schema.h"

#include <QJsonDocument>
#include <QSaveFile>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fputs("usage: stepscope-config-schema OUT.json\n", stderr);
        return 2;
    }
    QSaveFile out(QString::fromLocal8Bit(argv[1])); // all or nothing: a worker never reads half a schema
    const QByteArray text = QJsonDocument(stepscope::configSchema()).toJson(QJsonDocument::Indented);
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
        std::fprintf(stderr, "stepscope-config-schema: cannot write %s: %s\n", argv[1],
                     out.errorString().toLocal8Bit().constData());
        return 1;
    }
    return 0;
}
