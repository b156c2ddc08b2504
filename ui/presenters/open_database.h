#pragma once
// A job that reads the database the controller has open: the file now, when one is open, and the
// next one on every open. Each owner of a job calls this once, so no one hands files around.
namespace stepscope::ui
{

class ReaderJob;
class RunController;

void followOpenDatabase(RunController *controller, ReaderJob *job);

} // namespace stepscope::ui
