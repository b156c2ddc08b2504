#include "blocking_call.h"

#include <atomic>
#include <mutex>
#include <thread>

namespace stepscope
{
namespace
{
// The id is atomic so that blockingCall needs no lock; the handler is read under the mutex only
// when the id matched, which is the rare (and wrong) case.
std::atomic<std::thread::id> forbidden{};
std::mutex handlerMutex;
std::function<void(std::string_view)> &handlerSlot()
{
    static std::function<void(std::string_view)> handler;
    return handler;
}
} // namespace

void forbidBlockingOnThisThread(std::function<void(std::string_view what)> handler)
{
    {
        std::lock_guard lock(handlerMutex);
        handlerSlot() = std::move(handler);
    }
    forbidden.store(std::this_thread::get_id());
}

void allowBlocking()
{
    forbidden.store(std::thread::id{});
}

bool blockingForbiddenHere()
{
    const std::thread::id id = forbidden.load();
    return id != std::thread::id{} && id == std::this_thread::get_id();
}

void blockingCall(std::string_view what)
{
    if (!blockingForbiddenHere())
        return;
    std::function<void(std::string_view)> handler;
    {
        std::lock_guard lock(handlerMutex);
        handler = handlerSlot();
    }
    if (handler)
        handler(what);
}

} // namespace stepscope
