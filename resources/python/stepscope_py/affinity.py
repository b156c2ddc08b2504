"""CPU pinning and threads, as the native worker does them (core/engine/cpu_affinity.cpp and
parseCoreList/formatCoreList/pickOneCore in core/config/run_config.cpp).

No torch import here: main() pins before torch starts CUDA or its thread pools, so that every
thread they create inherits the mask.
"""
import os
import re
import sys


def parse_core_list(text, core_count):
    """Sorted cores of a taskset -c style list ("3", "2,3", "4-7") of cores below `core_count`
    (the configuration schema's cpu_affinity range); raises ValueError saying why."""
    text = str(text)

    def bad(why):
        return ValueError(f"'{text}' is not a core list: {why} (e.g. 3, 2,3 or 4-7; cores 0..{core_count - 1})")

    if not text:
        raise bad("it is empty")
    cores = set()
    for item in text.split(","):
        lo_text, dash, hi_text = item.partition("-")
        if not dash:
            hi_text = lo_text
        # ASCII digits only: no signs, spaces, other scripts' digits or the empty string, as in C++.
        if not (re.fullmatch("[0-9]+", lo_text) and re.fullmatch("[0-9]+", hi_text)):
            raise bad(f"'{item}' is not a core number or range")
        lo, hi = int(lo_text), int(hi_text)
        if lo >= core_count or hi >= core_count:
            raise bad(f"'{item}' is not a core number or range")
        if hi < lo:
            raise bad(f"range '{item}' runs backwards")
        # One grammar for every list, as in C++: a core named twice is a slip, never merged quietly.
        for core in range(lo, hi + 1):
            if core in cores:
                raise bad(f"core {core} is named twice")
            cores.add(core)
    return sorted(cores)


def format_core_list(cores):
    """{0, 2, 3, 4} -> "0,2-4"."""
    cores = sorted(set(cores))
    parts, i = [], 0
    while i < len(cores):
        j = i
        while j + 1 < len(cores) and cores[j + 1] == cores[j] + 1:
            j += 1
        parts.append(str(cores[i]) if i == j else f"{cores[i]}-{cores[j]}")
        i = j + 1
    return ",".join(parts)


def pick_one_core(allowed):
    """The first allowed core other than 0 (interrupts and housekeeping often live there), else 0;
    the same core for every repeat of a configuration. None when nothing is allowed."""
    allowed = sorted(allowed)
    for core in allowed:
        if core != 0:
            return core
    return allowed[0] if allowed else None


def allowed_cores():
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def pin(affinity):
    """Pins every thread of this process; returns "" or what is wrong (reported as cpu_affinity)."""
    if affinity == "none":
        return ""
    if not hasattr(os, "sched_setaffinity"):
        return f"{affinity}: pinning is implemented on Linux only; use none"
    allowed = allowed_cores()
    may = "this process may use " + (format_core_list(allowed) or "no core it can read")
    if affinity == "one":
        core = pick_one_core(allowed)
        if core is None:
            return "one: the cores this process may use cannot be read"
        wanted = [core]
    else:
        wanted = parse_core_list(affinity, sys.maxsize)  # config.parse checked it against the schema
        for core in wanted:
            if core not in allowed:
                return f"core {core} is not available; {may}"
    # The mask is per thread: the ones that already exist, then this one (later threads inherit it).
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = []
    for tid in tids:
        try:
            os.sched_setaffinity(tid, wanted)
        except OSError:  # a thread that just ended
            pass
    try:
        os.sched_setaffinity(0, wanted)
    except OSError as exc:
        return f"{affinity}: sched_setaffinity failed ({exc}); {may}"
    return ""
