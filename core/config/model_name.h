#pragma once
// The model a run trains (issue 30), as the configuration names it:
//   resnet18                      the built-in ResNet18 both workers train (the default)
//   torchvision:NAME              a torchvision model by its builder's name: torchvision:mobilenet_v3_small
//   timm:NAME                     a timm model: timm:vit_tiny_patch16_224
//   hf:NAME                       a transformers architecture by its model type, built from its config
//                                 class with random weights (no download): hf:gpt2, hf:bert
//   module.path:factory           the user's own factory, imported from the Python path
//   /path/to/file.py:factory      the same, from a file
// Each may end in ",key=value" options, passed to the builder (timm:vit_tiny_patch16_224,img_size=64;
// hf:gpt2,n_layer=2,n_embd=64). The grammar is one regular expression: the native side checks names
// with it, and the build writes it into config_schema.json for the Python worker, which builds the model.
#include <string>

namespace stepscope
{

inline constexpr const char *kDefaultModel = "resnet18";

// The grammar above, an ECMAScript regular expression that Python's re.fullmatch reads the same way.
const char *modelPattern();
bool isModelName(const std::string &text);
// What a refusal lists as allowed.
const char *modelPhrase();

} // namespace stepscope
