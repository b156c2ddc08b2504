#!/bin/sh
# STEPSCOPE_NATIVE_WORKER needs one program; this one runs the Python stand-in beside it.
exec python3 "$(dirname "$0")/fake_worker.py" "$@"
