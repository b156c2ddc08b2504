#include "controller/latest.h"

#include <algorithm>

namespace stepscope::ui
{

Latest::Latest(QObject *owner, int kinds) : owner_(owner), latest_(static_cast<std::size_t>(kinds)) {}

Latest::~Latest()
{
    cancel();
    // A watcher still under way settles a state nobody listens to any more.
    state_->busyChanged = nullptr;
}

Latest::Flag Latest::fresh()
{
    // Flags no request holds any more are forgotten, so that the list stays as long as the work under way.
    all_.erase(std::remove_if(all_.begin(), all_.end(), [](const auto &w) { return w.expired(); }), all_.end());
    auto flag = std::make_shared<std::atomic<bool>>(false);
    all_.push_back(flag);
    return flag;
}

Ticket Latest::next(int kind)
{
    drop(kind);
    Flag &latest = latest_.at(static_cast<std::size_t>(kind));
    latest = fresh();
    return Ticket(latest);
}

Ticket Latest::alongside()
{
    return Ticket(fresh());
}

void Latest::drop(int kind)
{
    Flag &latest = latest_.at(static_cast<std::size_t>(kind));
    if (latest)
        *latest = true;
    latest.reset();
}

void Latest::cancel()
{
    for (const auto &weak : all_)
        if (const Flag flag = weak.lock())
            *flag = true;
    all_.clear();
    for (Flag &flag : latest_)
        flag.reset();
}

void Latest::began()
{
    if (state_->inFlight++ == 0 && state_->busyChanged)
        state_->busyChanged(true);
}

void Latest::settle(State &state)
{
    if (--state.inFlight == 0 && state.busyChanged)
        state.busyChanged(false);
}

} // namespace stepscope::ui
