#pragma once
// The dashboard asks the native worker for CUDA devices as the CLI does, with the same limit
// (supervisor/device_probe.h); the window names it in its own namespace.
#include "supervisor/device_probe.h"

namespace stepscope::ui
{
class DeviceProbe : public supervisor::DeviceProbe
{
  public:
    using supervisor::DeviceProbe::DeviceProbe;
};
} // namespace stepscope::ui
