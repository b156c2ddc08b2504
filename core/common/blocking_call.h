#pragma once
// Which thread must never wait: the dashboard's UI thread may not start a Python, run nvidia-smi or
// scan a folder, because each can take from 50 ms to many seconds and the window freezes meanwhile.
// Code that waits like that says so with blockingCall("what") before it waits; on the forbidden
// thread the handler runs. The dashboard's handler logs it (a freeze is better than a crash for a
// user); the UI tests' handler fails the test, so a new call on the UI thread is found by CI, not by
// a user. Plain functions and one atomic: no Qt, so core and the command line share it.
#include <functional>
#include <string_view>

namespace stepscope
{

// From now on blockingCall on the calling thread runs `handler` with what was about to wait. One
// thread at a time: a second call moves the guard to its thread.
void forbidBlockingOnThisThread(std::function<void(std::string_view what)> handler);
// The guard is lifted (the thread may wait again).
void allowBlocking();
// Says that the caller is about to wait for `what` (a process, a scan); runs the handler when the
// calling thread is the forbidden one. Cheap elsewhere: one atomic load and a thread id compare.
void blockingCall(std::string_view what);
// Whether the calling thread is the forbidden one (for code that picks a background path itself).
bool blockingForbiddenHere();

} // namespace stepscope
