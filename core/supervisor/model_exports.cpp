#include "supervisor/model_exports.h"

#include "config/model_name.h"

#include <QCryptographicHash>
#include <QDir>

namespace stepscope::supervisor
{

bool ModelExports::needed(const RunConfig &config)
{
    return config.runtime == Runtime::Native && config.model != kDefaultModel;
}

std::string ModelExports::key(const RunConfig &config)
{
    return config.model + "|" + config.device + "|b" + std::to_string(config.batch) + "|i" +
           std::to_string(config.imageSize) + "|s" + std::to_string(config.sequenceLength) + "|c" +
           std::to_string(config.classes) + "|seed" + std::to_string(config.seed);
}

QString ModelExports::path(const RunConfig &config) const
{
    const auto it = made_.find(key(config));
    return it == made_.end() ? QString() : it->second;
}

std::optional<Failure> ModelExports::failure(const RunConfig &config) const
{
    const auto it = failed_.find(key(config));
    return it == failed_.end() ? std::nullopt : std::optional<Failure>(it->second);
}

QString ModelExports::target(const RunConfig &config, int lane, std::string &problem)
{
    if (!dir_) {
        dir_ = std::make_unique<QTemporaryDir>(QDir::temp().filePath("stepscope-exports-XXXXXX"));
        if (!dir_->isValid()) {
            problem = "no folder for the TorchScript exports could be made under " + QDir::tempPath().toStdString() +
                      ": " + dir_->errorString().toStdString();
            dir_.reset();
            return {};
        }
    }
    // A file name from the key: model names hold ':' ',' '/' that no file name should.
    const QByteArray hash = QCryptographicHash::hash(QByteArray::fromStdString(key(config)), QCryptographicHash::Sha1);
    return dir_->filePath(QString::fromLatin1(hash.toHex().left(16)) + "-lane" + QString::number(lane) + ".pt");
}

void ModelExports::made(const RunConfig &config, const QString &path)
{
    made_[key(config)] = path;
}

Failure ModelExports::failed(const RunConfig &config, const Failure &why)
{
    Failure said = why;
    said.message = "n/a on the native worker: " + why.message + " (runtime python runs " + config.model + ")";
    failed_[key(config)] = said;
    return said;
}

} // namespace stepscope::supervisor
