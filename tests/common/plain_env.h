#pragma once
// Sets (value) or removes (null) an environment variable of this process without Qt. On Windows the
// process block, which GetEnvironmentVariableW and a started child read, and the C runtime's copy,
// which getenv reads, are two: both are set. An empty value stays set (_putenv_s would remove it).
#include <cstdlib>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

namespace stepscope::test
{

inline void setEnvironment(const char *name, const char *value)
{
#ifdef _WIN32
    // An empty value removes the runtime's copy and the block's; the block's is set again after.
    _putenv_s(name, value ? value : "");
    SetEnvironmentVariableA(name, value);
#else
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
#endif
}

} // namespace stepscope::test
