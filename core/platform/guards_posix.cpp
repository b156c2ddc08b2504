// guards.h on Linux and other POSIX systems: flock for the lock, fork and an AF_UNIX socket pair
// for the watchdog.
#include "platform/guards.h"

#include "platform/platform.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace stepscope::platform
{
namespace
{

constexpr int kMaxGroups = 64;

std::string readAll(int fd)
{
    std::string text;
    char buffer[512];
    ssize_t n;
    off_t offset = 0;
    while ((n = pread(fd, buffer, sizeof buffer, offset)) > 0 && text.size() < 4096) {
        text.append(buffer, std::size_t(n));
        offset += n;
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

// Closes every descriptor but `keep`: the watchdog must not hold this process's files open (a
// lock's descriptor would keep the lock, a pipe's would keep a reader waiting). close_range where
// the kernel has it (Linux 5.9), else one by one up to `limit`.
void closeAllBut(int keep, long limit) noexcept
{
#ifdef SYS_close_range
    const bool low = keep == 0 || syscall(SYS_close_range, 0u, unsigned(keep - 1), 0u) == 0;
    if (low && syscall(SYS_close_range, unsigned(keep + 1), ~0u, 0u) == 0)
        return;
#endif
    for (long fd = 0; fd < limit; ++fd)
        if (fd != keep)
            close(int(fd));
}

// The watchdog's whole life, after the fork: only async-signal-safe calls (the parent may have had
// other threads, whose locks the fork copied held).
[[noreturn]] void watch(int socket, long fdLimit) noexcept
{
    setsid();
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE})
        std::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    closeAllBut(socket, fdLimit);

    std::int64_t groups[kMaxGroups];
    int count = 0;
    for (;;) {
        std::int64_t message = 0;
        const ssize_t n = recv(socket, &message, sizeof message, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != sizeof message)
            break; // 0: every sender is gone, the parent among them
        if (message > 0 && count < kMaxGroups) {
            groups[count++] = message;
        } else if (message < 0) {
            for (int i = 0; i < count; ++i)
                if (groups[i] == -message) {
                    groups[i] = groups[--count];
                    break;
                }
        }
    }
    for (int i = 0; i < count; ++i)
        kill(-pid_t(groups[i]), SIGKILL);
    _exit(0);
}

void send(int socket, std::int64_t message) noexcept
{
    // MSG_NOSIGNAL: a watchdog that is gone must not end this process with SIGPIPE.
    while (::send(socket, &message, sizeof message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
}

} // namespace

FileLock::FileLock(const std::string &path, const std::string &holder)
{
    // O_CLOEXEC: a child (pip) that outlived this process must not keep the lock.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        systemError_ = errno;
        return;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        systemError_ = errno;
        if (systemError_ == EWOULDBLOCK) {
            state_ = State::Busy;
            holder_ = readAll(fd);
        }
        close(fd);
        return;
    }
    const std::string text = holder + '\n';
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text.data(), text.size(), 0) != ssize_t(text.size())) {
        systemError_ = errno != 0 ? errno : EIO; // a full disk refuses even these few bytes
        close(fd);
        return;
    }
    handle_ = fd;
    state_ = State::Held;
}

FileLock::~FileLock()
{
    if (handle_ < 0)
        return;
    // Emptied first, so that the file names no holder that is gone (where that fails, the close
    // still ends the lock: the text never decides).
    [[maybe_unused]] const int emptied = ftruncate(int(handle_), 0);
    close(int(handle_));
}

std::string FileLock::error() const
{
    return errorText(systemError_);
}

GroupWatchdog::GroupWatchdog()
{
    int pair[2];
    // SEQPACKET: each message arrives whole; CLOEXEC: the children this process starts drop the
    // sending end at exec, so that the socket closes when this process ends, not when they do.
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return;
    const long fdLimit = sysconf(_SC_OPEN_MAX) > 0 ? std::min(sysconf(_SC_OPEN_MAX), 65536L) : 1024;
    const pid_t pid = fork();
    if (pid == 0)
        watch(pair[1], fdLimit);
    close(pair[1]);
    if (pid < 0) {
        close(pair[0]);
        return;
    }
    socket_ = pair[0];
    pid_ = pid;
}

GroupWatchdog::~GroupWatchdog()
{
    if (socket_ >= 0)
        close(socket_);
    if (pid_ > 0)
        while (waitpid(pid_t(pid_), nullptr, 0) < 0 && errno == EINTR) {
        }
}

void GroupWatchdog::watchOwnGroup() const noexcept
{
    if (socket_ >= 0)
        send(socket_, std::int64_t(getpgrp()));
}

void GroupWatchdog::forget(std::int64_t pid) const
{
    if (socket_ >= 0 && pid > 0)
        send(socket_, -pid);
}

} // namespace stepscope::platform
