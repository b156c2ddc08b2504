"""The Python worker of Stepscope (see stepscope_worker.py)."""
