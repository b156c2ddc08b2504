// Compiled into every UI test program (stepscope_add_qtest): the thread that runs main() is the UI
// thread, and from the moment QTEST_MAIN makes the application on, any code that says it is about to wait there
// (common/blocking_call.h: a Python started, nvidia-smi, a folder scanned) ends the test at once,
// naming what waited. A wait that freezes the window is found by CI, not by a user.
#include "common/blocking_call.h"

#include <QCoreApplication>

#include <string>

namespace
{

// At the application's construction, on its thread. Not a static initializer: the guard's own state
// (blocking_call.cpp) may be initialised after one, which would lift the guard again.
void forbidBlockingOnTheUiThread()
{
    stepscope::forbidBlockingOnThisThread([](std::string_view what) {
        qFatal("The UI thread waited for %s: do it off the UI thread (ui/controller/latest.h)",
               std::string(what).c_str());
    });
}

} // namespace

Q_COREAPP_STARTUP_FUNCTION(forbidBlockingOnTheUiThread)
