#pragma once
// Sets an environment variable for one scope, and puts back what was there: the tests of how
// workers and interpreters are found change what the lookup reads, never for the tests after them.
#include <QByteArray>
#include <QtGlobal>

namespace stepscope::test
{

class ScopedEnv
{
  public:
    // A null value unsets the variable for the scope.
    ScopedEnv(const char *name, const QByteArray &value)
        : name_(name), had_(qEnvironmentVariableIsSet(name)), old_(qgetenv(name))
    {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    ~ScopedEnv()
    {
        if (had_)
            qputenv(name_, old_);
        else
            qunsetenv(name_);
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    const char *name_;
    bool had_;
    QByteArray old_;
};

} // namespace stepscope::test
