#pragma once
// A wheel over a form scrolls the form: spin boxes and combo boxes under the pointer change their
// value only once the user has clicked (or tabbed) into them. Without it, scrolling down the
// configuration panel turned "64 px" into "58 px" on the way.
class QWidget;

namespace stepscope::ui
{

// Guards every spin box and combo box under `root` that exists now (call it after building the form).
void installWheelGuard(QWidget *root);

} // namespace stepscope::ui
