#include "common/model_facts.h"

namespace stepscope
{

std::string_view toString(FlopsSource s)
{
    switch (s) {
    case FlopsSource::FlopCounter:
        return "torch.utils.flop_counter";
    case FlopsSource::ResNet18Layers:
        return "resnet18-layers";
    case FlopsSource::None:
        break;
    }
    return "";
}

FlopsSource flopsSourceFromString(std::string_view s)
{
    for (const FlopsSource f : {FlopsSource::FlopCounter, FlopsSource::ResNet18Layers})
        if (s == toString(f))
            return f;
    return FlopsSource::None;
}

std::string flopsSourceText(FlopsSource s)
{
    switch (s) {
    case FlopsSource::FlopCounter:
        return "counted by torch.utils.flop_counter";
    case FlopsSource::ResNet18Layers:
        return "counted from ResNet18's layers";
    case FlopsSource::None:
        break;
    }
    return "";
}

} // namespace stepscope
