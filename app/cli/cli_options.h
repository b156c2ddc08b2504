#pragma once
// stepscope-cli's commands and their options, in one table. The parser, every --help, the bash
// completion (`stepscope-cli completion bash`) and the manual page (`stepscope-cli man`) are all
// generated from it, so that none of them can name an option the others do not know.
#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

namespace stepscope::cli
{

// What an option's value is, for the completion: a file, a folder, free text (numbers included),
// or one of `choices`. A switch has none.
enum class ValueKind { None, Text, File, Directory, Choice };

struct OptionSpec {
    QString name;      // without dashes: "preset", "image-size"
    QString shortName; // "h" for -h; mostly empty
    QString valueName; // as help shows it: "FILE", "ledger|each"; empty for a switch
    QString help;
    ValueKind kind = ValueKind::None;
    QStringList choices;   // the values the completion offers (a value may still be another one)
    QString implicitValue; // the value of `--name` given alone, for an option whose value may be left out
};

struct OptionGroup {
    QString title; // "run options", "configuration flags (...)"
    std::vector<OptionSpec> options;
};

struct CommandSpec {
    QString name;      // "run"; empty for the program itself (the options before a command)
    QString arguments; // how its arguments are written after the options: "RUN", "[COMMAND]"
    int maxArguments = 0;
    bool needsDatabase = false;
    QString summary;                 // one line, for the list of commands
    QString description;             // a paragraph, for its --help and the manual
    std::vector<OptionGroup> groups; // its own options
    std::vector<std::pair<int, QString>> exitCodes;
    // Command lines to copy, each with what it does: its --help ends with them, the manual lists all.
    std::vector<std::pair<QString, QString>> examples;
};

// The defaults that help texts name: this machine's paths for --help, or the rule that gives them
// for the manual page and anything generated once for every machine.
struct HelpDefaults {
    QString database;
    QString compileCacheDir;
};
HelpDefaults machineDefaults();
HelpDefaults genericDefaults();

// The options every command takes (--db, -h/--help).
std::vector<OptionSpec> commonOptions(const HelpDefaults &defaults);
// The program's own: the common ones and --version, given before the command.
CommandSpec programSpec(const HelpDefaults &defaults);
// run, list, show, export, doctor, then help, completion and man.
std::vector<CommandSpec> commandSpecs(const HelpDefaults &defaults);

QString programHelp(const HelpDefaults &defaults);
QString commandHelp(const CommandSpec &command, const HelpDefaults &defaults);
QString bashCompletion();
QString manPage();

// One command's arguments, parsed by QCommandLineParser against its table. An option whose value
// may be left out (a configuration switch: `--tf32` alone means true) and an option whose value is
// missing (`--name --single`) are settled before the parser sees them.
class CommandLine
{
  public:
    CommandLine(CommandSpec command, HelpDefaults defaults);
    // False when the command must not run: its --help was printed (exitCode 0), or the arguments
    // were refused with a message that names the option and the command's --help (exitCode 2).
    bool parse(const QStringList &arguments, int &exitCode);

    bool isSet(const QString &name) const;
    QString value(const QString &name) const; // the last one given
    QStringList positionalArguments() const;
    // The options given, in command-line order, each with its value (empty for a switch).
    std::vector<std::pair<QString, QString>> given() const;
    const CommandSpec &spec() const { return command_; }

  private:
    // The option of this command nearest to a mistyped `name` (a few edits away), or "".
    QString suggestion(const QString &name) const;
    const OptionSpec *find(const QString &name) const;

    CommandSpec command_;
    HelpDefaults defaults_;
    std::vector<OptionSpec> options_; // the command's and the common ones
    QCommandLineParser parser_;
};

} // namespace stepscope::cli
