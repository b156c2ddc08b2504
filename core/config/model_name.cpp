#include "config/model_name.h"

#include <QRegularExpression>
#include <QString>

namespace stepscope
{

// Option values stop at ',' and '=' so that a list of options reads one way; a file's path may hold
// anything but ',' and ':' (the factory follows the last ':', and Windows' "C:" is issue 33's).
#define STEPSCOPE_IDENT "[A-Za-z_][A-Za-z0-9_]*"
#define STEPSCOPE_OPTIONS "(," STEPSCOPE_IDENT "=[A-Za-z0-9_.+-]+)*"
const char *modelPattern()
{
    return "resnet18"
           "|(torchvision|timm|hf):[A-Za-z0-9_.-]+" STEPSCOPE_OPTIONS
           "|" STEPSCOPE_IDENT "(\\." STEPSCOPE_IDENT ")*:" STEPSCOPE_IDENT STEPSCOPE_OPTIONS
           "|[^,:]+\\.py:" STEPSCOPE_IDENT STEPSCOPE_OPTIONS;
}
#undef STEPSCOPE_OPTIONS
#undef STEPSCOPE_IDENT

bool isModelName(const std::string &text)
{
    // PCRE, as Python's re reads the same pattern. (std::regex also would, but GCC 12 under the
    // sanitizers warns inside its own headers, and the build treats warnings as errors.)
    static const QRegularExpression pattern(QRegularExpression::anchoredPattern(QLatin1String(modelPattern())));
    return pattern.match(QString::fromStdString(text)).hasMatch();
}

const char *modelPhrase()
{
    return "resnet18, torchvision:NAME, timm:NAME, hf:NAME, module.path:factory or /path/to/file.py:factory, "
           "each optionally followed by ,key=value options";
}

} // namespace stepscope
