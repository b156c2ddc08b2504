"""CMakePresets.json and vcpkg.json, which no build here reads whole (the windows-msvc preset and the
vcpkg manifest are for Windows): both parse, every preset names a configure preset that exists, and
the manifest holds what the Windows build finds through vcpkg (README "Windows")."""
import json
import os
import subprocess
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def load(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return json.load(f)


class Manifests(unittest.TestCase):
    def test_every_preset_names_a_configure_preset_that_exists(self):
        presets = load("CMakePresets.json")
        configure = {p["name"] for p in presets["configurePresets"]}
        for kind in ("buildPresets", "testPresets"):
            for p in presets.get(kind, []):
                self.assertIn(p["configurePreset"], configure, f"{kind} {p['name']}")
        self.assertIn("windows-msvc", configure)
        self.assertIn("windows-mingw-core", configure)

    def test_the_msvc_preset_takes_vcpkg_and_the_manifest_what_it_finds_there(self):
        msvc = next(p for p in load("CMakePresets.json")["configurePresets"] if p["name"] == "windows-msvc")
        self.assertEqual(msvc["toolchainFile"], "$env{VCPKG_ROOT}/scripts/buildsystems/vcpkg.cmake")
        deps = set(load("vcpkg.json")["dependencies"])
        for needed in ("qtbase", "qtsvg", "sqlite3", "zlib", "gtest"):
            self.assertIn(needed, deps)

    def test_cmake_reads_the_presets(self):
        out = subprocess.run(["cmake", "--list-presets"], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('"windows-mingw-core"', out.stdout)


if __name__ == "__main__":
    unittest.main()
