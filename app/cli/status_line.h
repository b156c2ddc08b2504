#pragma once
// How `run` talks on standard error while a sweep runs: one progress line redrawn in place on a
// terminal, whole lines elsewhere, and Qt's own warnings kept off a half-drawn line.
#include "platform/platform.h"

#include <QString>
#include <QtGlobal>

#include <cmath>
#include <cstdio>

namespace stepscope::cli
{

// "42 s", "3 min 05 s": a compile's progress, whole seconds being enough.
inline QString phaseSeconds(double s)
{
    const long total = std::lround(s);
    if (total < 120)
        return QString::number(total) + " s";
    return QString("%1 min %2 s").arg(total / 60).arg(total % 60, 2, 10, QChar('0'));
}

// What a sweep says on standard error while it runs. On a terminal, the running configuration's
// progress redraws one line in place ("\r", the text cut to the terminal's width so that it never
// wraps, then clear to the end of the line); any other message first clears that line (and a ^C
// the terminal echoed there) and takes whole lines of its own. Elsewhere (a pipe, a file) only
// whole lines are written: progress that would redraw is left out.
class StatusLine
{
  public:
    bool onTerminal() const { return terminal_; }
    void progress(const QString &text)
    {
        if (!terminal_)
            return;
        std::fprintf(stderr, "\r%s\33[K", fitted(text).toLocal8Bit().constData());
        open_ = true;
    }
    void clear()
    {
        if (terminal_)
            std::fputs("\r\33[K", stderr);
        open_ = false;
    }
    void message(const QString &text)
    {
        clear();
        std::fprintf(stderr, "%s\n", qPrintable(text));
    }
    bool open() const { return open_; }

  private:
    static QString fitted(const QString &text)
    {
        qsizetype columns = platform::stderrColumns();
        if (columns == 0)
            columns = qEnvironmentVariableIntValue("COLUMNS");
        const qsizetype room = columns - 1; // the last column would wrap on some terminals
        if (columns <= 0 || text.size() <= room)
            return text;
        if (room < 12)
            return text.left(room);
        // The start names the run ("[3/8] native cuda ..."), the end its state: the middle goes.
        const qsizetype head = (room - 3) / 2;
        return text.left(head) + "..." + text.right(room - 3 - head);
    }

    bool terminal_ = platform::stderrIsTerminal();
    bool open_ = false;
};

// While a sweep runs, Qt's own messages (warnings) clear an open progress line first as well.
class ScopedMessageHandler
{
  public:
    explicit ScopedMessageHandler(StatusLine &status)
    {
        current = &status;
        previous = qInstallMessageHandler(&ScopedMessageHandler::handle);
    }
    ~ScopedMessageHandler()
    {
        qInstallMessageHandler(previous);
        current = nullptr;
    }
    ScopedMessageHandler(const ScopedMessageHandler &) = delete;
    ScopedMessageHandler &operator=(const ScopedMessageHandler &) = delete;

  private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        if (current && current->open())
            current->clear();
        if (previous)
            previous(type, context, message);
    }
    static inline StatusLine *current = nullptr;
    static inline QtMessageHandler previous = nullptr;
};

} // namespace stepscope::cli
