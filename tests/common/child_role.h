#pragma once
// The part a test binary plays when a test starts it again as a second process (child_process.h
// with QProcess, plain_child.h without Qt): STEPSCOPE_TEST_CHILD names the part, empty in the test
// process itself; STEPSCOPE_TEST_CHILD_ARG is what the parent handed it (a path, say).
#include <cstdlib>
#include <string>

namespace stepscope::test
{

inline std::string childRole()
{
    const char *role = std::getenv("STEPSCOPE_TEST_CHILD");
    return role ? role : "";
}

inline std::string childArgument()
{
    const char *argument = std::getenv("STEPSCOPE_TEST_CHILD_ARG");
    return argument ? argument : "";
}

} // namespace stepscope::test
