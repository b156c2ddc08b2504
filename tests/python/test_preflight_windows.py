"""The preflight's Windows rules (resources/python/stepscope_py/preflight.py, its facts in
triton_windows.py), fed with the seed's own Windows facts: torch 2.6 with the triton-windows 3.7 that
`pip install triton-windows` gave, and inductor's default cache under a user's Temp folder. Plain
Python: no torch, no Windows needed (paths are judged with ntpath as Windows would)."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "python"))

from stepscope_py import preflight, triton_windows  # noqa: E402

SEED_TEMP = r"C:\Users\seeduser\AppData\Local\Temp"


class TritonWindowsBand(unittest.TestCase):
    def test_the_seeds_triton_under_torch_2_6_is_refused_naming_the_import_error_and_the_pin(self):
        why = preflight.triton_mismatch("3.7.0", "2.6.0+cu126", platform="win32")
        self.assertIsNotNone(why)
        self.assertIn("needs <3.3", why)
        self.assertIn("ImportError: cannot import name 'AttrsDescriptor'", why)
        self.assertIn('pip install "triton-windows<3.3"', why)

    def test_a_triton_below_3_3_goes_with_torch_2_6(self):
        self.assertIsNone(preflight.triton_mismatch("3.2.0.post18", "2.6.0", platform="win32"))

    def test_stepscopes_own_torch_has_a_band(self):
        wanted, source = preflight.required_triton("2.11.0", platform="win32")
        self.assertEqual(wanted, "3.6")
        self.assertIn("triton-windows", source)
        self.assertIsNone(preflight.triton_mismatch("3.6.0.post25", "2.11.0", platform="win32"))
        why = preflight.triton_mismatch("3.7.0", "2.11.0", platform="win32")
        self.assertIn('pip install "triton-windows>=3.6,<3.7"', why)
        self.assertNotIn("AttrsDescriptor", why, "torch 2.11 does not import it")

    def test_an_older_triton_under_a_newer_torch_is_refused_too(self):
        self.assertIsNotNone(preflight.triton_mismatch("3.2.0", "2.7.1", platform="win32"))
        self.assertIsNone(preflight.triton_mismatch("3.3.1.post19", "2.7.1", platform="win32"))

    def test_a_torch_without_a_known_band_is_not_judged(self):
        wanted, source = preflight.required_triton("2.5.1", platform="win32")
        self.assertIsNone(wanted)
        self.assertIn("no known triton-windows band", source)
        self.assertIsNone(preflight.triton_mismatch("3.7.0", "2.5.1", platform="win32"))

    def test_every_band_installs_with_a_requirement_pip_reads(self):
        for torch_minor, band in triton_windows.BANDS.items():
            req = triton_windows.requirement(band)
            self.assertRegex(req, r"^triton-windows(<\d+\.\d+|>=\d+\.\d+,<\d+\.\d+)$", torch_minor)
            if not band.startswith("<"):
                low, high = re.findall(r"\d+\.\d+", req)
                self.assertEqual(low, band)
                self.assertEqual(preflight.version_tuple(high)[:2], (int(band.split(".")[0]),
                                                                      int(band.split(".")[1]) + 1))


class MaxPath(unittest.TestCase):
    def problem(self, environ, long_paths=False):
        return preflight.cache_path_problem(environ, platform="win32", long_paths=long_paths,
                                            temp_dir=SEED_TEMP, user="seeduser")

    def test_inductors_default_cache_under_temp_passes_max_path(self):
        triton_dir = preflight.triton_cache_dir({}, platform="win32", temp_dir=SEED_TEMP, user="seeduser")
        self.assertEqual(triton_dir, SEED_TEMP + r"\torchinductor_seeduser\triton\0")
        # 68 characters of folders, 52 of key, 51 of temporary folder, 110 of file name, 3 separators.
        self.assertEqual(preflight.predicted_path_length(triton_dir, platform="win32"), 284)
        why = self.problem({})
        self.assertIsNotNone(why)
        self.assertIn("284 of the 260", why)
        self.assertIn("TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR", why)
        self.assertIn("LongPathsEnabled", why)

    def test_the_seeds_fix_short_cache_folders_fits(self):
        self.assertIsNone(self.problem({"TORCHINDUCTOR_CACHE_DIR": r"C:\tc\inductor",
                                        "TRITON_CACHE_DIR": r"C:\tc\triton"}))

    def test_a_short_inductor_cache_alone_also_moves_tritons(self):
        self.assertEqual(preflight.triton_cache_dir({"TORCHINDUCTOR_CACHE_DIR": r"C:\tc"}, platform="win32"),
                         r"C:\tc\triton\0")
        self.assertIsNone(self.problem({"TORCHINDUCTOR_CACHE_DIR": r"C:\tc"}))

    def test_a_long_triton_cache_is_refused_whatever_inductors(self):
        long_dir = "C:\\" + "\\".join(["folder-of-twenty-ch"] * 5)
        self.assertIsNotNone(self.problem({"TORCHINDUCTOR_CACHE_DIR": r"C:\tc", "TRITON_CACHE_DIR": long_dir}))

    def test_long_paths_enabled_lets_the_default_through(self):
        self.assertIsNone(self.problem({}, long_paths=True))
        self.assertEqual(preflight.path_budget("win32", long_paths=False), 260)


if __name__ == "__main__":
    unittest.main()
