// PlainChild (plain_child.h): posix_spawn or CreateProcessW, two pipes, and the exit status.
#include "plain_child.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <fcntl.h>
#include <io.h>
#else
#include <csignal>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
#endif

namespace stepscope::test
{
namespace
{

// The child inherits this process's environment: the role is set in it for the moment of the start
// (the tests start children from their one thread) and taken out again.
class RoleInEnvironment
{
  public:
    RoleInEnvironment(const std::string &role, const std::string &argument)
    {
        setEnvironment("STEPSCOPE_TEST_CHILD", role.c_str());
        setEnvironment("STEPSCOPE_TEST_CHILD_ARG", argument.c_str());
    }
    ~RoleInEnvironment()
    {
        setEnvironment("STEPSCOPE_TEST_CHILD", nullptr);
        setEnvironment("STEPSCOPE_TEST_CHILD_ARG", nullptr);
    }
    RoleInEnvironment(const RoleInEnvironment &) = delete;
    RoleInEnvironment &operator=(const RoleInEnvironment &) = delete;
};

std::string gtestFilter()
{
    const ::testing::TestInfo *test = ::testing::UnitTest::GetInstance()->current_test_info();
    return std::string("--gtest_filter=") + test->test_suite_name() + "." + test->name();
}

} // namespace

std::string PlainChild::readLine(const std::string &prefix)
{
    char buffer[1024];
    while (output_ && std::fgets(buffer, sizeof buffer, output_)) {
        std::string line(buffer);
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        if (line.compare(0, prefix.size(), prefix) == 0)
            return line;
    }
    return {};
}

#ifdef _WIN32

bool underWine()
{
    const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version");
}

PlainChild::PlainChild(const std::string &role, const std::string &argument)
{
    wchar_t self[MAX_PATH];
    if (!GetModuleFileNameW(nullptr, self, MAX_PATH))
        return;
    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE inRead = nullptr, inWrite = nullptr, outRead = nullptr, outWrite = nullptr;
    if (!CreatePipe(&inRead, &inWrite, &inherit, 0) || !CreatePipe(&outRead, &outWrite, &inherit, 0))
        return;
    // Only the child's ends are inherited: a parent's end in the child would keep a pipe open.
    SetHandleInformation(inWrite, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(outRead, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = inRead;
    startup.hStdOutput = outWrite;
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    const std::string filter = gtestFilter();
    std::wstring commandLine = L"\"" + std::wstring(self) + L"\" " + std::wstring(filter.begin(), filter.end());
    PROCESS_INFORMATION info{};
    bool ok = false;
    {
        const RoleInEnvironment env(role, argument);
        ok = CreateProcessW(self, commandLine.data(), nullptr, nullptr, TRUE, CREATE_NEW_PROCESS_GROUP, nullptr, nullptr,
                            &startup, &info);
    }
    CloseHandle(inRead);
    CloseHandle(outWrite);
    if (!ok) {
        CloseHandle(inWrite);
        CloseHandle(outRead);
        return;
    }
    CloseHandle(info.hThread);
    pid_ = static_cast<std::int64_t>(info.dwProcessId);
    process_ = reinterpret_cast<std::intptr_t>(info.hProcess);
    input_ = reinterpret_cast<std::intptr_t>(inWrite);
    output_ = _fdopen(_open_osfhandle(reinterpret_cast<std::intptr_t>(outRead), _O_RDONLY | _O_TEXT), "r");
}

PlainChild::~PlainChild()
{
    closeInput();
    if (process_ != -1 && !reaped_)
        TerminateProcess(reinterpret_cast<HANDLE>(process_), 1);
    if (process_ != -1) {
        WaitForSingleObject(reinterpret_cast<HANDLE>(process_), 10000);
        CloseHandle(reinterpret_cast<HANDLE>(process_));
    }
    if (output_)
        std::fclose(output_);
}

void PlainChild::closeInput()
{
    if (input_ != -1)
        CloseHandle(reinterpret_cast<HANDLE>(input_));
    input_ = -1;
}

bool PlainChild::interrupt() const
{
    return pid_ > 0 && GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, static_cast<DWORD>(pid_));
}

PlainChild::End PlainChild::wait()
{
    End end;
    const auto process = reinterpret_cast<HANDLE>(process_);
    DWORD code = 0;
    if (process_ == -1 || WaitForSingleObject(process, 60000) != WAIT_OBJECT_0 || !GetExitCodeProcess(process, &code))
        return end;
    reaped_ = true; // the handle stays open until the destructor: the process object outlives its end
    end.code = static_cast<int>(code);
    return end;
}

#else

bool underWine()
{
    return false;
}

PlainChild::PlainChild(const std::string &role, const std::string &argument)
{
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    int in[2], out[2];
    if (pipe(in) != 0)
        return;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    for (const int fd : {in[0], in[1], out[0], out[1]})
        posix_spawn_file_actions_addclose(&actions, fd);
    std::string filter = gtestFilter();
    char *argv[] = {self, filter.data(), nullptr};
    pid_t pid = -1;
    int failed = 0;
    {
        const RoleInEnvironment env(role, argument);
        failed = posix_spawn(&pid, self, &actions, nullptr, argv, environ);
    }
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (failed) {
        close(in[1]);
        close(out[0]);
        return;
    }
    pid_ = pid;
    input_ = in[1];
    output_ = fdopen(out[0], "r");
}

PlainChild::~PlainChild()
{
    closeInput();
    if (pid_ > 0 && !reaped_) {
        kill(static_cast<pid_t>(pid_), SIGKILL);
        waitpid(static_cast<pid_t>(pid_), nullptr, 0);
    }
    if (output_)
        std::fclose(output_);
}

void PlainChild::closeInput()
{
    if (input_ != -1)
        close(static_cast<int>(input_));
    input_ = -1;
}

bool PlainChild::interrupt() const
{
    return pid_ > 0 && kill(static_cast<pid_t>(pid_), SIGINT) == 0;
}

PlainChild::End PlainChild::wait()
{
    End end;
    int status = 0;
    if (pid_ <= 0 || reaped_ || waitpid(static_cast<pid_t>(pid_), &status, 0) != static_cast<pid_t>(pid_))
        return end;
    reaped_ = true;
    end.signalled = WIFSIGNALED(status);
    end.code = end.signalled ? WTERMSIG(status) : WEXITSTATUS(status);
    return end;
}

#endif

} // namespace stepscope::test
