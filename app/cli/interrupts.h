#pragma once
// Ctrl-C, kill, a closed terminal (SIGHUP) and Ctrl-\ (SIGQUIT), or on Windows Ctrl-C and Ctrl-Break,
// end a long command (`run`, `setup`) the same way (platform::interruptSignals): the signal handler
// only sets a flag, and the event loop, polling it, calls the command's stop. Stopping from a signal
// handler itself could touch nothing safely.
#include "platform/platform.h"

#include <QTimer>

#include <atomic>
#include <csignal>
#include <functional>

namespace stepscope::cli
{

class InterruptWatch
{
  public:
    explicit InterruptWatch(std::function<void()> stop) : stop_(std::move(stop))
    {
        for (const int s : platform::interruptSignals())
            std::signal(s, &InterruptWatch::onSignal);
        QObject::connect(&poll_, &QTimer::timeout, [this] {
            if (interrupted.exchange(false))
                stop_();
        });
        poll_.start(100);
    }

  private:
    static void onSignal(int)
    {
        interrupted.store(true);
    }
    static inline std::atomic<bool> interrupted{false};
    std::function<void()> stop_;
    QTimer poll_;
};

} // namespace stepscope::cli
