"""Facts about Triton on Windows that the preflight (preflight.py) and doctor judge by.

torch's Windows wheels pin no Triton; the community wheel triton-windows
(github.com/woct0rdho/triton-windows) must match a narrow band of torch releases. Sources:
- the bands: triton-windows' README, "Install from wheel", one pip requirement per torch release
  (torch 2.6: "triton-windows<3.3", 2.7: "<3.4", 2.8: "<3.5", 2.9: "<3.6", 2.10: "<3.7"); triton-windows
  follows upstream Triton's minor releases, and torch 2.11's own wheel pins triton==3.6.0 on Linux
  (its package metadata, read in this project's environment), hence 3.6 for 2.11;
- AttrsDescriptor: torch 2.6's inductor imports it from Triton when it starts
  (torch/_inductor/runtime/hints.py), Triton 3.3 no longer has it, so a newer triton-windows under
  torch 2.6 fails with the ImportError below (the seed's `pip install triton-windows` gave 3.7);
- the cache layout: Triton's FileCacheManager.put (triton/runtime/cache.py) writes each file into
  <cache dir>/<key>/tmp.pid_<pid>_<uuid4>/<name> and then moves it up one folder.
"""

# torch (major, minor) -> the triton-windows versions it needs: "<3.3" (below 3.3) or "3.4" (3.4.x).
BANDS = {(2, 6): "<3.3", (2, 7): "3.3", (2, 8): "3.4", (2, 9): "3.5", (2, 10): "3.6", (2, 11): "3.6"}

# The last torch whose inductor imports AttrsDescriptor, and the first Triton without it.
LAST_TORCH_WITH_ATTRS_DESCRIPTOR = (2, 6)
FIRST_TRITON_WITHOUT_ATTRS_DESCRIPTOR = (3, 3)
ATTRS_DESCRIPTOR_ERROR = "ImportError: cannot import name 'AttrsDescriptor'"

# Windows' MAX_PATH, the longest path without LongPathsEnabled (less its terminating NUL).
MAX_PATH = 260
# Below a Triton cache directory: the key folder (base32 of a SHA-256: 52 characters), then the
# temporary folder "tmp.pid_<pid>_<uuid4>" (a pid of 6 digits, as Windows gives below a million; a
# uuid4 of 36 characters),
# then a fused kernel's file name, which runs to about 110 characters for ResNet18's batch-norm fusions.
TRITON_KEY_CHARS = 52
TRITON_TEMP_DIR_CHARS = len("tmp.pid_") + 6 + 1 + 36
KERNEL_FILE_CHARS = 110
# Where inductor puts Triton's cache when TRITON_CACHE_DIR is unset: <inductor cache>/triton/<device>.
INDUCTOR_TRITON_SUBDIR = ("triton", "0")


def requirement(band):
    """The pip requirement that installs a band: "triton-windows<3.3", "triton-windows>=3.4,<3.5"."""
    if band.startswith("<"):
        return "triton-windows" + band
    major, minor = (int(p) for p in band.split(".")[:2])
    return f"triton-windows>={major}.{minor},<{major}.{minor + 1}"
