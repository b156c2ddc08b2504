"""Start states of a compiled run on the CPU (docs/decisions.md, "Start states"): the supervisor says
the start by STEPSCOPE_START (fresh, shipped, again) and hands torch.compile's mega-cache bundle over
by STEPSCOPE_BUNDLE_SAVE and STEPSCOPE_BUNDLE_LOAD; the worker checks a start by the FX graph
cache's hits.

    python -m unittest tests/python/test_start_states.py      (STEPSCOPE_BIN_DIR: the build's bin/)

Three ResNet18 compiles on two cores (a fresh one that saves, a shipped one that loads, an again one
on empty caches): a few minutes, run alone.
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_worker import TINY, error_of, python_worker  # noqa: E402

# The smallest run that compiles: one step after the first, the model alone (inductor's default).
COMPILED = {**TINY, "warmup_steps": 0, "steps": 1, "compile": "default"}


def compile_infos(lines):
    return [m["info"] for m in lines if m["type"] == "compile"]


class CompiledStarts(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def caches(self, name):
        """Empty inductor and Triton caches of their own: every run here starts without the others'."""
        root = os.path.join(self.tmp.name, name)
        return {"TORCHINDUCTOR_CACHE_DIR": os.path.join(root, "inductor"),
                "TRITON_CACHE_DIR": os.path.join(root, "triton")}

    def test_a_fresh_run_saves_the_bundle_a_shipped_run_hits(self):
        bundle = os.path.join(self.tmp.name, "mega-cache.bin")
        rc, lines, err = python_worker(COMPILED, {**self.caches("fresh"), "STEPSCOPE_START": "fresh",
                                                  "STEPSCOPE_BUNDLE_SAVE": bundle})
        self.assertEqual(rc, 0, err)
        after_step, final = compile_infos(lines)
        self.assertEqual((final["start"], final["cache"]), ("fresh", "fresh"))
        self.assertNotIn("bundle_saved", after_step, "saved after the timed steps, not after step 1")
        self.assertNotIn("bundle_save_problem", final)
        self.assertTrue(os.path.isfile(bundle))
        size = os.path.getsize(bundle)
        self.assertGreater(size, 0)
        self.assertEqual(final["bundle_saved"]["bytes"], size)
        self.assertEqual(final["bundle_saved"]["path"], bundle)
        self.assertGreater(final["bundle_saved"]["artifacts"].get("inductor", 0), 0, final["bundle_saved"])
        self.assertFalse(os.path.exists(bundle + ".tmp"))
        self.assertNotIn("bundle", final, "a fresh run loads no bundle")

        # A new process on new, empty caches: only the bundle can make its FX graph cache hit.
        rc, lines, err = python_worker(COMPILED, {**self.caches("shipped"), "STEPSCOPE_START": "shipped",
                                                  "STEPSCOPE_BUNDLE_LOAD": bundle})
        self.assertEqual(rc, 0, err)
        infos = compile_infos(lines)
        self.assertEqual(len(infos), 2)
        for info in infos:
            self.assertEqual((info["start"], info["cache"]), ("shipped", "shipped"))
            use = info["bundle"]
            self.assertEqual((use["path"], use["bytes"]), (bundle, size))
            self.assertGreater(use["hits"], 0, use)
            self.assertEqual(use["misses"], 0, use)
            self.assertFalse(use["missed"], use)
            self.assertEqual(use["problem"], "")
            self.assertGreater(use["loaded"].get("inductor", 0), 0, use)
            self.assertGreaterEqual(use["load_s"], 0.0)
            self.assertNotIn("bundle_saved", info, "no STEPSCOPE_BUNDLE_SAVE, no bundle saved")

    def test_a_shipped_run_without_its_bundle_file_is_internal_naming_the_path(self):
        missing = os.path.join(self.tmp.name, "no-such-bundle.bin")
        rc, lines, err = python_worker(COMPILED, {**self.caches("shipped"), "STEPSCOPE_START": "shipped",
                                                  "STEPSCOPE_BUNDLE_LOAD": missing})
        self.assertEqual(rc, 1, err)
        failure = error_of(lines)
        self.assertEqual(failure["category"], "internal", failure)
        self.assertIn(missing, failure["message"])
        self.assertNotIn("first_step", [m["type"] for m in lines], "refused before the first step")

    def test_an_again_run_on_empty_caches_is_not_called_again(self):
        rc, lines, err = python_worker(COMPILED, {**self.caches("again"), "STEPSCOPE_START": "again"})
        self.assertEqual(rc, 1, err)
        failure = error_of(lines)
        self.assertEqual(failure["category"], "compile-failed", failure)
        self.assertIn("labelled again", failure["message"])
        self.assertIn("missed", failure["message"])
        info = compile_infos(lines)[-1]
        self.assertEqual(info["start"], "again")
        self.assertIn("labelled again", info["cache_problem"])
        self.assertNotIn("done", [m["type"] for m in lines])


class StartStateParts(unittest.TestCase):
    """The parts on their own, without a compile: the words, the bundle record, saving that fails."""

    def setUp(self):
        from stepscope_py import compiled, config

        self.compiled = compiled
        self.config = config
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_start_words(self):
        self.assertEqual(self.compiled.start_state({}), "fresh")
        self.assertEqual(self.compiled.start_state({"STEPSCOPE_START": ""}), "fresh")
        for word in ("fresh", "shipped", "again"):
            self.assertEqual(self.compiled.start_state({"STEPSCOPE_START": word}), word)
        with self.assertRaises(self.compiled.WorkerFailure) as caught:
            self.compiled.start_state({"STEPSCOPE_START": "warm"})
        self.assertEqual(caught.exception.category, "internal")
        self.assertIn("STEPSCOPE_START='warm'", caught.exception.message)

    def test_a_bad_start_word_fails_the_worker_before_hello(self):
        rc, lines, err = python_worker(TINY, {"STEPSCOPE_START": "cold"})
        self.assertEqual(rc, 1, err)
        self.assertEqual(error_of(lines)["category"], "internal")
        self.assertNotIn("hello", [m["type"] for m in lines])

    def test_the_bundle_record_says_what_missed(self):
        loaded = {"path": "/b", "bytes": 10, "load_s": 0.1, "loaded": {"inductor": 2}}
        hit = self.compiled.bundle_use(loaded, {"fx_graph_cache": {"hit": 2}, "aot_autograd_cache": {"hit": 1}},
                                       "inductor")
        self.assertEqual((hit["hits"], hit["misses"], hit["aot_hits"], hit["aot_misses"]), (2, 0, 1, 0))
        self.assertEqual((hit["missed"], hit["problem"]), (False, ""))
        self.assertEqual((hit["path"], hit["bytes"], hit["load_s"], hit["loaded"]), ("/b", 10, 0.1, {"inductor": 2}))
        some = self.compiled.bundle_use(loaded, {"fx_graph_cache": {"hit": 1, "miss": 3}}, "inductor")
        self.assertTrue(some["missed"])
        self.assertEqual(some["problem"], "shipped, but inductor compiled 3 graph(s) the bundle lacked")
        none = self.compiled.bundle_use({**loaded, "loaded": {}}, {"fx_graph_cache": {}}, "inductor")
        self.assertTrue(none["missed"])
        self.assertIn("loaded no artifact", none["problem"])
        self.assertIn("hit no graph", none["problem"])

    def test_a_save_that_fails_is_a_problem_not_a_failure(self):
        import torch

        saved = torch.compiler.save_cache_artifacts
        try:
            torch.compiler.save_cache_artifacts = lambda: None
            self.assertIn("returned nothing", self.compiled.save_bundle(os.path.join(self.tmp.name, "b"))
                          ["bundle_save_problem"])
            torch.compiler.save_cache_artifacts = lambda: (b"bytes", None)
            into = os.path.join(self.tmp.name, "no-such-folder", "b")
            self.assertIn(into, self.compiled.save_bundle(into)["bundle_save_problem"])
            path = os.path.join(self.tmp.name, "b")
            self.assertEqual(self.compiled.save_bundle(path)["bundle_saved"]["bytes"], 5)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"bytes")
            del torch.compiler.save_cache_artifacts
            self.assertIn("save_cache_artifacts", self.compiled.save_bundle(path)["bundle_save_problem"])
        finally:
            torch.compiler.save_cache_artifacts = saved

    def test_a_torch_without_the_load_api_is_too_old(self):
        import torch

        load = torch.compiler.load_cache_artifacts
        try:
            del torch.compiler.load_cache_artifacts
            with self.assertRaises(self.compiled.WorkerFailure) as caught:
                self.compiled.load_bundle(os.path.join(self.tmp.name, "b"))
        finally:
            torch.compiler.load_cache_artifacts = load
        self.assertEqual(caught.exception.category, "torch-too-old")
        self.assertIn("torch.compiler.load_cache_artifacts", caught.exception.message)
        self.assertIn("upgrade torch or run without the shipped start", caught.exception.message)

    def test_compile_cache_of_an_earlier_supervisor_is_ignored(self):
        # A schema without the field (the table dropped it): the key is accepted and read by nothing;
        # any other unknown key is still refused.
        schema = self.config.schema()
        trimmed = {**schema, "fields": [f for f in schema["fields"] if f["key"] != "compile_cache"],
                   "rules": [r for r in schema["rules"] if r["field"] != "compile_cache"
                             and all(w["field"] != "compile_cache" for w in r["when"])]}
        saved, self.config._schema = self.config._schema, trimmed
        try:
            for value in ("cold", "warm"):
                c = self.config.parse({"runtime": "python", "device": "cpu", "compile": "default",
                                       "compile_cache": value})
                self.assertFalse(hasattr(c, "compile_cache"))
            _, errors = self.config.check({"compile_cashe": "warm"})
            self.assertEqual([field for field, _ in errors], ["compile_cashe"])
            self.assertIn("unknown setting", errors[0][1])
        finally:
            self.config._schema = saved


if __name__ == "__main__":
    unittest.main()
