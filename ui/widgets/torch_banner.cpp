#include "widgets/torch_banner.h"

#include "models/status_colors.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace stepscope::ui
{

TorchBanner::TorchBanner(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("torchBanner"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("QFrame#torchBanner { background: %1; border: 1px solid %2; }")
                      .arg(warningBackground().name(), warningColor().name()));
    auto *title = new QLabel(tr("<b>PyTorch is not set up</b>"));
    reason_ = new QLabel;
    reason_->setWordWrap(true);
    reason_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setup_ = new QPushButton(tr("Set up PyTorch…"));
    setup_->setToolTip(tr("Installs PyTorch into an environment of Stepscope's own (Tools › Set up PyTorch…); "
                          "CUDA devices are looked for again once it is done."));
    auto *words = new QVBoxLayout;
    words->addWidget(title);
    words->addWidget(reason_);
    auto *layout = new QHBoxLayout(this);
    layout->addLayout(words, 1);
    layout->addWidget(setup_, 0, Qt::AlignVCenter);
    connect(setup_, &QPushButton::clicked, this, &TorchBanner::setupRequested);
    setVisible(false);
}

void TorchBanner::showProblem(const QString &why)
{
    const QString sentence = why.endsWith(QLatin1Char('.')) ? why : why + QLatin1Char('.');
    reason_->setText(tr("%1 Until it is, Stepscope cannot tell whether this machine has a CUDA device.").arg(sentence));
    setVisible(true);
}

QString TorchBanner::text() const
{
    return tr("PyTorch is not set up") + QLatin1Char('\n') + reason_->text();
}

} // namespace stepscope::ui
