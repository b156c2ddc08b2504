"""The Python worker on its own and against the native worker, on the CPU with tiny shapes.

    python -m unittest tests/python/test_worker.py      (STEPSCOPE_BIN_DIR: the build's bin/)

Failure injections that need the whole CLI live in tests/cli/cli_python_faults.sh; these are the
ones the CLI cannot reach on a machine without a GPU, and the runtime comparison.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ.get("STEPSCOPE_BIN_DIR", "")
WORKER = os.path.join(BIN, "stepscope_worker.py")
NATIVE = os.path.join(BIN, "stepscope-worker")
sys.path.insert(0, BIN)

INVALID_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "invalid_configs.json")
TINY = {"device": "cpu", "batch": 2, "image_size": 32, "classes": 10, "warmup_steps": 1, "steps": 3, "seed": 7}


def run_worker(command, config, env=None, timeout=300):
    proc = subprocess.run(command + ["--config", json.dumps(config)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return proc.returncode, lines, proc.stderr


def python_worker(config, env=None):
    return run_worker([sys.executable, "-u", WORKER], {"runtime": "python", **config}, env)


def error_of(lines):
    errors = [m for m in lines if m["type"] == "error"]
    return errors[-1] if errors else None


class SameFieldsAsNative(unittest.TestCase):
    """Both runtimes, one eager configuration: the same messages with the same fields, the same
    model, data and first loss (same seed, same initialisation order)."""

    def test_same_messages_fields_and_first_loss(self):
        rc_n, native, err_n = run_worker([NATIVE], TINY)
        rc_p, python, err_p = python_worker(TINY)
        self.assertEqual(rc_n, 0, err_n)
        self.assertEqual(rc_p, 0, err_p)

        def shape(lines):
            kinds = []
            for m in lines:
                if not kinds or kinds[-1][0] != m["type"]:  # steps come in batches of any size
                    kinds.append((m["type"], tuple(sorted(m))))
            return kinds

        self.assertEqual(shape(native), shape(python))
        steps = lambda lines: sum(len(m["wall_ms"]) for m in lines if m["type"] == "steps")
        self.assertEqual(steps(native), steps(python))
        self.assertEqual(steps(python), 1 + TINY["warmup_steps"] + TINY["steps"])
        env_n = next(m["env"] for m in native if m["type"] == "hello")
        env_p = next(m["env"] for m in python if m["type"] == "hello")
        self.assertEqual(set(env_n) - set(env_p), set(), "the Python worker lacks hello keys the native one has")
        self.assertEqual(env_p["worker"], "python")
        loss_n = next(m["losses"] for m in native if m["type"] == "check")
        loss_p = next(m["losses"] for m in python if m["type"] == "check")
        self.assertEqual(len(loss_n), len(loss_p))
        # Step 1 sees identical weights and data: any difference is summation order only.
        self.assertAlmostEqual(loss_n[0], loss_p[0], delta=1e-4 * abs(loss_n[0]))


class NamedFailures(unittest.TestCase):
    def test_unknown_setting_is_invalid_config_with_exit_2(self):
        rc, lines, _ = python_worker({**TINY, "warp_drive": True})
        self.assertEqual(rc, 2)
        self.assertEqual(error_of(lines)["category"], "invalid-config")
        self.assertIn("warp_drive", error_of(lines)["message"])

    def test_triton_missing_on_cuda(self):
        # A `triton` that cannot be imported, first on the path: inductor on CUDA cannot work.
        with tempfile.TemporaryDirectory() as stub:
            os.makedirs(os.path.join(stub, "triton"))
            with open(os.path.join(stub, "triton", "__init__.py"), "w") as f:
                f.write("raise ImportError('no Triton here (test stub)')\n")
            rc, lines, err = python_worker({**TINY, "device": "cuda", "compile": "default"}, {"PYTHONPATH": stub})
        self.assertEqual(rc, 1, err)
        self.assertEqual(error_of(lines)["category"], "triton-missing")

    def test_cache_path_predicted_too_long_before_compiling(self):
        long_dir = "/tmp/" + "/".join(["d" * 200] * 21)
        rc, lines, err = python_worker({**TINY, "compile": "default"}, {"TORCHINDUCTOR_CACHE_DIR": long_dir})
        self.assertEqual(rc, 1, err)
        failure = error_of(lines)
        self.assertEqual(failure["category"], "cache-path-too-long")
        self.assertNotIn("ready", [m["type"] for m in lines], "refused before any setup")

    def test_broken_torchvision_is_named_not_a_traceback(self):
        with tempfile.TemporaryDirectory() as stub:
            os.makedirs(os.path.join(stub, "torchvision"))
            with open(os.path.join(stub, "torchvision", "__init__.py"), "w") as f:
                f.write("raise ImportError('torchvision built for another torch (test stub)')\n")
            rc, lines, err = python_worker(TINY, {"PYTHONPATH": stub})
        self.assertEqual(rc, 1, err)
        self.assertEqual(error_of(lines)["category"], "torch-missing")
        self.assertIn("torchvision", error_of(lines)["message"])
        self.assertNotIn("Traceback", err)

    def test_torch_version_mismatch(self):
        rc, lines, _ = python_worker(TINY, {"STEPSCOPE_EXPECTED_TORCH": "2.4.1"})
        self.assertEqual(rc, 1)
        self.assertEqual(error_of(lines)["category"], "torch-version-mismatch")


class SameRefusalsAsNative(unittest.TestCase):
    """Every invalid configuration of tests/data/invalid_configs.json (which test_config.cpp runs
    through core/config) is refused by the Python worker's validation with the same fields and
    messages, in the same order: both read the C++ table (config_schema.json beside the worker)."""

    def setUp(self):
        from stepscope_py import config

        self.config = config
        with open(INVALID_CONFIGS, encoding="utf-8") as f:
            self.cases = json.load(f)["cases"]

    def test_every_case_of_the_file(self):
        self.assertGreaterEqual(len(self.cases), 50, "the file lost its cases")
        for case in self.cases:
            with self.subTest(case["name"]):
                parsed, errors = self.config.parse_config(json.dumps(case["config"]))
                self.assertIsNone(parsed)
                self.assertEqual([list(e) for e in errors], case["errors"])
                failure = self.config.refusal(errors)
                self.assertEqual(failure.category, "invalid-config")
                self.assertEqual(failure.message, "{}: {}".format(*case["errors"][0]))

    def test_both_worker_processes_refuse_alike(self):
        # A rule the Python worker's own table lacked before it read the C++ one.
        case = next(c for c in self.cases if c["name"] == "compile_target step without a compile mode")
        command = ["--config", json.dumps(case["config"])]
        replies = {}
        for name, program in (("native", [NATIVE]), ("python", [sys.executable, "-u", WORKER])):
            proc = subprocess.run(program + command, capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 2, f"{name}: {proc.stderr}")
            replies[name] = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
            self.assertEqual([m["type"] for m in replies[name]], ["error"], name)
        self.assertEqual(replies["native"], replies["python"])
        failure = replies["python"][0]
        self.assertEqual(failure["category"], "invalid-config")
        self.assertEqual(failure["message"], "{}: {}".format(*case["errors"][0]))

    def test_a_missing_or_foreign_schema_is_named(self):
        with tempfile.TemporaryDirectory() as tree:
            shutil.copy(WORKER, tree)
            shutil.copytree(os.path.join(BIN, "stepscope_py"), os.path.join(tree, "stepscope_py"),
                            ignore=shutil.ignore_patterns("config_schema.json", "__pycache__"))
            schema = os.path.join(tree, "stepscope_py", "config_schema.json")
            for content, says in ((None, "is missing"), ('{"format": "other", "version": 1}', "is not the configuration schema"),
                                  ("{", "cannot be read")):
                if content is not None:
                    with open(schema, "w") as f:
                        f.write(content)
                proc = subprocess.run([sys.executable, "-u", os.path.join(tree, "stepscope_worker.py"), "--config",
                                       json.dumps({**TINY, "runtime": "python"})], capture_output=True, text=True,
                                      timeout=120)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                failure = error_of([json.loads(line) for line in proc.stdout.splitlines() if line.strip()])
                self.assertEqual(failure["category"], "internal", says)
                self.assertIn("config_schema.json", failure["message"])
                self.assertIn(says, failure["message"])
                self.assertIn("rebuild", failure["message"])

    def test_defaults_and_the_workers_runtime(self):
        c = self.config.parse({"runtime": "python"})
        self.assertEqual((c.batch, c.image_size, c.optimizer, c.cpu_affinity, c.seed), (32, 224, "foreach", "none", 0))
        # Left out, the runtime is the table's default in validation, and the worker's own in the worker.
        self.assertEqual(self.config.parse({}).runtime, "native")
        self.assertEqual(self.config.parse({}, base={"runtime": "python"}).runtime, "python")
        # Seeds travel as text and are exact beyond 2^53.
        self.assertEqual(self.config.parse({"seed": "9007199254740993"}).seed, 9007199254740993)


class Preflight(unittest.TestCase):
    def setUp(self):
        from stepscope_py import preflight

        self.p = preflight

    def test_windows_triton_bands(self):
        self.assertEqual(self.p.required_triton("2.10.1", "win32")[0], "3.6")
        self.assertEqual(self.p.required_triton("2.7.0+cu128", "win32")[0], "3.3")
        self.assertEqual(self.p.required_triton("2.6.0", "win32")[0], "<3.3")
        self.assertIsNone(self.p.required_triton("2.3.0", "win32")[0])

    def test_band_matching(self):
        self.assertTrue(self.p.triton_matches("3.6.0", "3.6.0"))
        self.assertFalse(self.p.triton_matches("3.5.1", "3.6.0"))
        self.assertTrue(self.p.triton_matches("3.3.1.post19", "3.3"))
        self.assertFalse(self.p.triton_matches("3.4.0", "3.3"))
        self.assertTrue(self.p.triton_matches("3.2.0", "<3.3"))
        self.assertFalse(self.p.triton_matches("3.3.0", "<3.3"))

    def test_linux_requirement_comes_from_torch_metadata(self):
        wanted, source = self.p.required_triton("2.11.0", "linux")
        self.assertEqual(wanted, "3.6.0")
        self.assertIn("metadata", source)

    def test_windows_path_budget_prediction(self):
        # 260 characters without long paths: a 100-character cache dir leaves no room.
        self.assertGreaterEqual(self.p.predicted_path_length("C:/" + "x" * 97), 260)
        self.assertLess(self.p.predicted_path_length("C:/sc/cc"), 260)


class FallbackDetection(unittest.TestCase):
    """A compiled configuration that did not compile is never reported as compiled."""

    def setUp(self):
        from stepscope_py import compiled, config

        self.compiled = compiled
        self.config = config

    def parse(self, obj):
        return self.config.parse({"runtime": "python", **obj})

    def info(self, **kw):
        base = {"graphs": 1, "frames_total": 1, "frames_ok": 1, "cudagraph_skips": []}
        base.update(kw)
        return base

    def test_no_graph_is_a_fallback(self):
        c = self.parse({"compile": "default"})
        self.assertIn("no graph", self.compiled.fallback_reason(c, self.info(graphs=0)))
        self.assertIn("1 of 2 frames", self.compiled.fallback_reason(c, self.info(graphs=0, frames_total=2)))
        self.assertEqual(self.compiled.fallback_reason(c, self.info()), "")

    def test_skipped_cudagraphs_fail_only_modes_that_ask_for_them(self):
        skipped = self.info(cudagraph_skips=["skipping cudagraphs due to mutated inputs"])
        ro = self.parse({"compile": "reduce-overhead", "device": "cuda"})
        self.assertIn("mutated inputs", self.compiled.fallback_reason(ro, skipped))
        nocg = self.parse({"compile": "max-autotune-no-cudagraphs", "device": "cuda"})
        self.assertEqual(self.compiled.fallback_reason(nocg, skipped), "")

    def test_a_warm_run_that_missed_the_cache_is_not_called_warm(self):
        warm = self.parse({"compile": "default", "compile_cache": "warm"})
        cold = self.parse({"compile": "default"})
        self.assertIn("missed 2 graph(s)", self.compiled.warm_cache_problem(warm, {"fx_graph_cache": {"miss": 2}}))
        self.assertEqual(self.compiled.warm_cache_problem(warm, {"fx_graph_cache": {"hit": 2}}), "")
        self.assertEqual(self.compiled.warm_cache_problem(cold, {"fx_graph_cache": {"miss": 2}}), "")

    def test_mode_goes_to_inductor_only(self):
        self.assertEqual(self.compiled.compile_kwargs(self.parse({"compile": "reduce-overhead", "device": "cuda"})),
                         {"backend": "inductor", "mode": "reduce-overhead"})
        self.assertEqual(
            self.compiled.compile_kwargs(self.parse({"compile": "default", "compile_backend": "aot_eager"})),
            {"backend": "aot_eager"})


class CpuAffinity(unittest.TestCase):
    """Pinning and threads: the parser as the native one (run_config.cpp) and both workers end to end."""

    def setUp(self):
        from stepscope_py import affinity, config

        self.a = affinity
        self.config = config

    def test_core_lists_parse_and_normalize(self):
        # Refused lists are cases of tests/data/invalid_configs.json (SameRefusalsAsNative).
        self.assertEqual(self.a.parse_core_list("3", 1024), [3])
        self.assertEqual(self.a.parse_core_list("4-7,2,3,5", 1024), [2, 3, 4, 5, 6, 7])
        self.assertEqual(self.a.format_core_list([8, 0, 2, 3, 3]), "0,2-3,8")
        self.assertEqual(self.a.parse_core_list("1023", 1024), [1023])
        with self.assertRaises(ValueError):
            self.a.parse_core_list("1023", 1000)
        self.assertEqual(self.a.pick_one_core([0, 1, 2]), 1)
        self.assertEqual(self.a.pick_one_core([0]), 0)
        self.assertIsNone(self.a.pick_one_core([]))

    def test_config_keys(self):
        c = self.config.parse({"cpu_affinity": "3,2", "threads": 4})
        self.assertEqual((c.cpu_affinity, c.threads), ("2-3", 4))
        self.assertEqual(self.config.parse({"cpu_affinity": 5}).cpu_affinity, "5")
        self.assertEqual(self.config.parse({"cpu_affinity": "one"}).cpu_affinity, "one")
        self.assertEqual(self.config.parse({}).cpu_affinity, "none")

    def hello(self, lines):
        return next(m["env"] for m in lines if m["type"] == "hello")

    def test_both_workers_pin_and_set_threads(self):
        core = max(os.sched_getaffinity(0))  # a core this test may use (the machine may have two)
        config = {**TINY, "cpu_affinity": str(core), "threads": 1, "steps": 1, "warmup_steps": 0}
        for name, (rc, lines, err) in (("native", run_worker([NATIVE], config)), ("python", python_worker(config))):
            self.assertEqual(rc, 0, f"{name}: {err}")
            env = self.hello(lines)
            self.assertEqual(env["cpu_affinity"], str(core), name)
            self.assertEqual(env["cpu_cores"], str(core), name)
            self.assertEqual(str(env["cpu_threads"]), "1", name)

    def test_one_core_and_unpinned(self):
        allowed = sorted(os.sched_getaffinity(0))
        expected = str(next((c for c in allowed if c != 0), allowed[0]))
        tiny = {**TINY, "steps": 1, "warmup_steps": 0}
        for name, run in (("native", lambda c: run_worker([NATIVE], c)), ("python", python_worker)):
            rc, lines, err = run({**tiny, "cpu_affinity": "one"})
            self.assertEqual(rc, 0, f"{name}: {err}")
            self.assertEqual(self.hello(lines)["cpu_cores"], expected, name)
            # Pinned without a thread count: one thread per pinned core, as under taskset (the
            # native library sized its pool for every core before the worker pinned itself).
            self.assertEqual(str(self.hello(lines)["cpu_threads"]), "1", name)
            rc, lines, err = run(tiny)
            self.assertEqual(rc, 0, f"{name}: {err}")
            self.assertEqual(self.hello(lines)["cpu_affinity"], "none", name)
            self.assertEqual(self.hello(lines)["cpu_cores"], self.a.format_core_list(allowed), name)

    def test_unavailable_core_is_invalid_config(self):
        for name, run in (("native", lambda c: run_worker([NATIVE], c)), ("python", python_worker)):
            rc, lines, _ = run({**TINY, "cpu_affinity": "1000"})
            self.assertEqual(rc, 2, name)
            failure = error_of(lines)
            self.assertEqual(failure["category"], "invalid-config", name)
            self.assertIn("core 1000 is not available; this process may use", failure["message"])


if __name__ == "__main__":
    unittest.main()
