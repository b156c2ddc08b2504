#pragma once
// A second process for the tests that build without Qt (the Windows cross build runs them under
// wine): the test binary itself, started again with a gtest filter that selects the calling test and
// STEPSCOPE_TEST_CHILD naming the part it plays (child_role.h), its stdin and stdout piped to this
// process, its stderr this process's. posix_spawn on POSIX, CreateProcessW on Windows (in a process
// group of its own there, so that a Ctrl-Break can be aimed at it alone).
//
// In the test body, the child's part comes first:
//     if (childRole() == "holder") { ...; std::_Exit(code); }
#include "child_role.h"
#include "plain_env.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace stepscope::test
{

// Whether this test runs under wine rather than on Windows (wine's ntdll has wine_get_version):
// where wine does not do what Windows does, a test says so instead of failing or passing silently.
bool underWine();

class PlainChild
{
  public:
    // Starts the running test again playing `role`, with `argument`; started() says whether it did.
    explicit PlainChild(const std::string &role, const std::string &argument = {});
    // Kills it if it still runs, and reaps it.
    ~PlainChild();
    PlainChild(const PlainChild &) = delete;
    PlainChild &operator=(const PlainChild &) = delete;

    bool started() const { return pid_ > 0; }
    std::int64_t pid() const { return pid_; }
    // The next line it writes to stdout that starts with `prefix` (gtest's own lines come between),
    // without its line end; empty once its stdout ends.
    std::string readLine(const std::string &prefix = {});
    // Ends its stdin: the child's cue to go on.
    void closeInput();
    // The system's interrupt for a console program: SIGINT on POSIX (a terminal's Ctrl-C), a
    // Ctrl-Break console event on Windows (Ctrl-C cannot be aimed at one process group there).
    bool interrupt() const;

    // How it ended: an exit code, or on POSIX the signal that ended it. Windows has no signals: a
    // crash is an exit code there (an NTSTATUS such as 0xC0000005).
    struct End {
        bool signalled = false;
        int code = -1;
    };
    End wait();

  private:
    std::int64_t pid_ = -1;
    std::intptr_t process_ = -1; // Windows: the process handle, held until wait() or the end
    std::intptr_t input_ = -1;   // the write end of its stdin
    std::FILE *output_ = nullptr; // the read end of its stdout
    bool reaped_ = false;
};

} // namespace stepscope::test
