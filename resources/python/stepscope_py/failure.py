"""Failures as values with the category names of core/common/failure.h."""


class WorkerFailure(Exception):
    """A failure with its category; raised anywhere, reported once by main()."""

    def __init__(self, category, message, detail=""):
        super().__init__(message)
        self.category = category
        self.message = message
        self.detail = detail


def first_line(text):
    text = str(text).strip()
    return text.splitlines()[0] if text else ""


def is_out_of_memory(exc):
    import torch  # only reached once torch imported fine

    if isinstance(exc, (torch.OutOfMemoryError, MemoryError)):
        return True
    text = str(exc)
    # CPU allocations fail as a RuntimeError from the default allocator.
    return "out of memory" in text or "can't allocate memory" in text or "Cannot allocate memory" in text
