#pragma once
// Which family a GPU kernel or an ATen op belongs to, from its name alone: cuDNN, cuBLAS, CUTLASS
// and inductor name their kernels after what they compute, and ATen ops say it in theirs.
#include "profile/profile_summary.h"

#include <string>

namespace stepscope::profile
{

Family kernelFamily(const std::string &name);

} // namespace stepscope::profile
