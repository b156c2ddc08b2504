#pragma once
// A store message as the dashboard shows it. The store names the remedy in no front end's words
// (store::kChooseAnotherFile); the dashboard adds where its user does that: `how` names the menu
// item or the button.
#include "store/store.h"

#include <QString>

namespace stepscope::ui
{

inline QString withFileChoiceHint(const QString &message, const QString &how)
{
    return QString::fromStdString(store::withFileChoiceHint(message.toStdString(), how.toStdString()));
}

} // namespace stepscope::ui
