#include "config/model_name.h"

#include <regex>

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
    static const std::regex pattern(modelPattern());
    return std::regex_match(text, pattern);
}

const char *modelPhrase()
{
    return "resnet18, torchvision:NAME, timm:NAME, hf:NAME, module.path:factory or /path/to/file.py:factory, "
           "each optionally followed by ,key=value options";
}

} // namespace stepscope
