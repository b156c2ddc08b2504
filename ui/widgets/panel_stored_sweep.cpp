#include "widgets/panel_stored_sweep.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace stepscope::ui
{

StoredSweepBanner::StoredSweepBanner(QWidget *parent)
    : QGroupBox(tr("Stored sweep"), parent), caption(new QLabel),
      runAgain(new QPushButton(tr("Run again with these settings")))
{
    caption->setWordWrap(true);
    runAgain->setToolTip(tr("Starts a new sweep of exactly the stored sweep's configurations, repeats and baseline"));
    auto *edit = new QPushButton(tr("Edit these"));
    edit->setToolTip(tr("Keeps these settings in the panel and lets you change them before Start"));
    auto *own = new QPushButton(tr("My settings"));
    own->setToolTip(tr("Back to the settings you had before the stored sweep was shown"));
    auto *row = new QHBoxLayout;
    row->addWidget(edit);
    row->addWidget(own);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(caption);
    layout->addWidget(runAgain);
    layout->addLayout(row);
    setVisible(false);
    connect(edit, &QPushButton::clicked, this, &StoredSweepBanner::editRequested);
    connect(own, &QPushButton::clicked, this, &StoredSweepBanner::ownRequested);
}

} // namespace stepscope::ui
