#!/usr/bin/env python3
"""stepscope_worker.py: the Python worker. Runs ONE configuration in this process and speaks the
same JSON-lines protocol as the native stepscope-worker; torch.compile and Python eager live here.

    python3 -u stepscope_worker.py --config '{"runtime":"python","device":"cuda","compile":"default",...}'
    python3 -u stepscope_worker.py --doctor [--device cpu|cuda]

Only the standard library is imported before the preflight, so an interpreter without torch still
answers with a named failure (torch-missing) instead of a traceback.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stepscope_py.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
