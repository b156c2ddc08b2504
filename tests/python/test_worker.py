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


class Toolchain(unittest.TestCase):
    """What torch.compile's C++ needs (issue 35.9): the doctor names a missing compiler or Python.h
    with the fix before its tiny compile, and a failed compile by the compiler's own first error."""

    def setUp(self):
        from stepscope_py import doctor, protocol, toolchain

        self.doctor, self.protocol, self.toolchain = doctor, protocol, toolchain
        self.tmp = tempfile.TemporaryDirectory()
        self.empty = os.path.join(self.tmp.name, "empty")  # a PATH and an include folder with nothing
        os.makedirs(self.empty)

    def tearDown(self):
        self.tmp.cleanup()

    def fake_compiler(self):
        """A g++ that answers --version and fails every compile as Debian without python3-dev does."""
        folder = os.path.join(self.tmp.name, "bin")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "g++")
        with open(path, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\ncase "$*" in *--version*) echo "g++ (Debian 12.2.0-14) 12.2.0"; exit 0;; esac\n'
                    'echo "/tmp/k.cpp:1:10: fatal error: Python.h: No such file or directory" >&2\n'
                    'echo "compilation terminated." >&2\nexit 1\n')
        os.chmod(path, 0o755)
        return folder

    def rows(self, environ, include):
        from unittest import mock

        out = __import__("io").StringIO()
        with mock.patch.dict(os.environ, environ, clear=True), mock.patch.object(self.protocol, "_out", out), \
                mock.patch("sysconfig.get_paths", return_value={"include": include}):
            self.doctor._toolchain_lines("cpu")
        return {m["item"]: m for m in map(json.loads, out.getvalue().splitlines())}

    def test_the_compiler_is_cxx_else_g_plus_plus_on_path(self):
        self.assertEqual(self.toolchain.cxx_compiler({"PATH": self.empty}), ("g++", None))
        self.assertEqual(self.toolchain.cxx_compiler({"PATH": self.empty, "CXX": "clang++"}), ("clang++", None))
        bin_dir = self.fake_compiler()
        self.assertEqual(self.toolchain.cxx_compiler({"PATH": bin_dir}), ("g++", os.path.join(bin_dir, "g++")))

    def test_python_headers_are_python_h_in_the_include_folder(self):
        self.assertEqual(self.toolchain.python_headers(self.empty), (self.empty, False))
        open(os.path.join(self.empty, "Python.h"), "w").close()
        self.assertEqual(self.toolchain.python_headers(self.empty), (self.empty, True))

    def test_doctor_names_a_missing_compiler_and_missing_headers_with_the_fix(self):
        rows = self.rows({"PATH": self.empty}, self.empty)
        self.assertEqual(rows["c++ compiler"]["status"], "fail")
        self.assertIn("g++ is not on PATH", rows["c++ compiler"]["value"])
        self.assertEqual(rows["python headers"]["status"], "fail")
        self.assertIn(f"no Python.h in {self.empty}", rows["python headers"]["value"])
        for row in rows.values():
            self.assertIn("apt install g++ python3-dev", row["fix"])
        # Both there: ok rows naming what was found.
        open(os.path.join(self.empty, "Python.h"), "w").close()
        rows = self.rows({"PATH": self.fake_compiler()}, self.empty)
        self.assertEqual([r["status"] for r in rows.values()], ["ok", "ok"], rows)

    def test_a_cpp_compile_error_reads_as_the_compilers_first_error(self):
        from torch._inductor.exc import CppCompileError

        output = "In file included from /tmp/k.cpp:1:\n/tmp/k.cpp:1:10: fatal error: Python.h: No such file or " \
                 "directory\ncompilation terminated.\n"
        try:
            try:
                raise CppCompileError(["g++", "/tmp/k.cpp"], output)
            except CppCompileError as inner:
                raise RuntimeError("backend='inductor' raised:\nCppCompileError: C++ compile error") from inner
        except RuntimeError as wrapped:
            exc = wrapped
        self.assertEqual(self.toolchain.describe(exc), "/tmp/k.cpp:1:10: fatal error: Python.h: No such file or directory")
        self.assertEqual(self.toolchain.compiler_error(ValueError("x")), "")
        self.assertEqual(self.toolchain.describe(ValueError("first\nsecond")), "first")

    def test_doctor_shows_the_compilers_error_and_leaves_no_compile_folder(self):
        # The real --doctor on the CPU with a compiler that fails as one without python3-dev does.
        caches, tmp = os.path.join(self.tmp.name, "cc"), os.path.join(self.tmp.name, "tmp")
        os.makedirs(tmp)
        env = {**os.environ, "PATH": self.fake_compiler() + os.pathsep + os.environ.get("PATH", ""),
               "STEPSCOPE_COMPILE_CACHE_ROOT": caches, "TMPDIR": tmp}
        env.pop("CXX", None)
        proc = subprocess.run([sys.executable, "-u", WORKER, "--doctor", "--device", "cpu"], capture_output=True,
                              text=True, timeout=300, env=env)
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        items = [r["item"] for r in rows]
        self.assertLess(items.index("python headers"), items.index("compile readiness"), items)
        ready = rows[items.index("compile readiness")]
        self.assertEqual(ready["status"], "fail")
        self.assertIn("fatal error: Python.h: No such file or directory", ready["value"])
        self.assertNotIn("Read the log above", ready["fix"])
        self.assertEqual(os.listdir(caches), [], "the doctor's compile folder goes with it")
        self.assertEqual([n for n in os.listdir(tmp) if n.startswith("torchinductor_")], [])


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

    def test_an_again_run_that_missed_the_cache_is_not_called_again(self):
        # The start state is the run's (STEPSCOPE_START), no longer the configuration's compile_cache.
        c = self.parse({"compile": "default"})
        problem = self.compiled.warm_cache_problem(c, {"fx_graph_cache": {"miss": 2}}, "again")
        self.assertIn("labelled again (a start on caches this configuration filled)", problem)
        self.assertIn("missed 2 graph(s)", problem)
        self.assertEqual(self.compiled.warm_cache_problem(c, {"fx_graph_cache": {"hit": 2}}, "again"), "")
        # A fresh or shipped start that misses is no again one (a shipped miss is its bundle record's).
        for start in ("fresh", "shipped"):
            self.assertEqual(self.compiled.warm_cache_problem(c, {"fx_graph_cache": {"miss": 2}}, start), "")
        aot = self.parse({"compile": "default", "compile_backend": "aot_eager"})
        self.assertEqual(self.compiled.warm_cache_problem(aot, {"fx_graph_cache": {"miss": 2}}, "again"), "")

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
        self.assertEqual(self.a.parse_core_list("4-7,2,3", 1024), [2, 3, 4, 5, 6, 7])
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


def processes_with(marker):
    """Pids of live processes whose command line holds `marker` (this test process left out)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read() and int(pid) != os.getpid():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@unittest.skipUnless(sys.platform.startswith("linux"), "the process checks read /proc")
class MemoryLimit(unittest.TestCase):
    """memory_limit_mib on the CPU (issue 31.3): both workers hold their peak resident memory to it and
    fail out-of-memory past it, naming the limit; under it the run is the run it would be without."""

    def test_both_workers_fail_out_of_memory_past_the_limit_and_run_under_it(self):
        tiny = {**TINY, "steps": 1, "warmup_steps": 0}
        for name, run in (("native", lambda c: run_worker([NATIVE], c)), ("python", python_worker)):
            rc, lines, err = run({**tiny, "memory_limit_mib": 16})  # less than any worker's own code
            error = error_of(lines)
            self.assertIsNotNone(error, f"{name}: {err}")
            self.assertEqual(error["category"], "out-of-memory", name)
            self.assertIn("memory_limit_mib 16 after the first step", error["message"], name)
            self.assertIn("at batch 2", error["message"], name)
            self.assertNotEqual(rc, 0, name)
            rc, lines, err = run({**tiny, "memory_limit_mib": 1 << 20})
            self.assertEqual(rc, 0, f"{name}: {err}")
            self.assertEqual(lines[-1]["type"], "done", name)


class DataParallel(unittest.TestCase):
    """world_size 2 on the CPU (gloo): the coordinator launches two ranks through torchrun and speaks
    for them; failures are named and leave no process behind. The ranks' fault hooks are the
    STEPSCOPE_TEST_DDP_* variables of stepscope_py/rank.py."""

    def setUp(self):
        # A seed of this test alone: it is in the command line of torchrun and every rank.
        self.seed = 7_000_000 + (os.getpid() % 100_000) * 10 + len(self._testMethodName) % 10
        self.config = {**TINY, "seed": self.seed, "world_size": 2}
        self.tmp = tempfile.TemporaryDirectory()  # TMPDIR of the run: its rank directory goes there
        self.marker = f'"seed": {self.seed}'

    def tearDown(self):
        for pid in processes_with(self.marker):
            os.kill(pid, 9)
        self.tmp.cleanup()

    def run_ddp(self, env=None):
        rc, lines, err = python_worker(self.config, {"TMPDIR": self.tmp.name, **(env or {})})
        return rc, lines, err

    def assert_nothing_left(self):
        self.assertEqual(processes_with(self.marker), [], "a process of the run outlived it")
        # The run's directory and torchrun's logs go with the run (inductor's cache directory stays).
        left = [name for name in os.listdir(self.tmp.name) if name.startswith(("stepscope-ddp-", "torchelastic_"))]
        self.assertEqual(left, [], "the run left directories behind")

    def test_two_ranks_run_to_done_with_the_slowest_rank_per_step(self):
        rc, lines, err = self.run_ddp()
        self.assertEqual(rc, 0, err)
        total = 1 + TINY["warmup_steps"] + TINY["steps"]
        kinds = [m["type"] for m in lines]
        self.assertEqual(set(kinds) - {"hello", "model", "ready", "first_step", "rank_steps", "steps", "check", "done"},
                         set(), "a stray line")
        for once in ("hello", "model", "ready", "first_step", "check", "done"):
            self.assertEqual(kinds.count(once), 1, once)
        self.assertEqual(kinds[0], "hello")
        self.assertEqual(kinds[-1], "done")
        self.assertLess(kinds.index("ready"), kinds.index("first_step"))
        self.assertLess(kinds.index("first_step"), kinds.index("steps"))
        env = lines[0]["env"]
        self.assertEqual((env["world_size"], env["ddp_backend"], env["ddp_launcher"], env["ddp_rank_devices"]),
                         ("2", "gloo", "torch.distributed.run", "cpu,cpu"))
        self.assertTrue(env["ddp_master_port"].isdigit())

        per_rank = {0: {}, 1: {}}
        for m in lines:
            if m["type"] == "rank_steps":
                self.assertEqual(m["gpu_ms"], [])
                for i, wall in enumerate(m["wall_ms"]):
                    self.assertNotIn(m["first"] + i, per_rank[m["rank"]], "a rank's step twice")
                    per_rank[m["rank"]][m["first"] + i] = wall
        for rank in (0, 1):
            self.assertEqual(sorted(per_rank[rank]), list(range(1, total + 1)), f"rank {rank}")
        merged = []
        for m in (m for m in lines if m["type"] == "steps"):
            self.assertEqual(m["first"], len(merged) + 1, "one stream of steps, in order")
            self.assertEqual(m["gpu_ms"], [])
            merged += m["wall_ms"]
        self.assertEqual(len(merged), total)
        for index, wall in enumerate(merged, start=1):
            self.assertEqual(wall, max(per_rank[0][index], per_rank[1][index]), f"step {index}")
        first = next(m for m in lines if m["type"] == "first_step")
        self.assertAlmostEqual(first["wall_s"] * 1000.0, merged[0], places=6)
        done = lines[-1]
        self.assertEqual(done["steps"], total)
        self.assertGreater(done["mean_wall_ms"], 0.0)
        self.assertEqual(len(next(m for m in lines if m["type"] == "check")["losses"]), total)
        self.assert_nothing_left()

    def test_a_rank_that_dies_is_named_and_the_others_are_ended(self):
        rc, lines, err = self.run_ddp({"STEPSCOPE_TEST_DDP_EXIT_RANK": "1", "STEPSCOPE_TEST_DDP_EXIT_STEP": "3"})
        self.assertEqual(rc, 1, err)
        failure = error_of(lines)
        self.assertEqual(failure["category"], "distributed-failed", failure)
        self.assertIn("rank 1 ended without a word (exit code 9)", failure["message"])
        self.assertEqual(lines[-1]["type"], "error", "the error is the last word")
        self.assert_nothing_left()

    def test_a_rank_that_hangs_is_named_and_every_rank_is_ended(self):
        rc, lines, err = self.run_ddp({"STEPSCOPE_TEST_DDP_HANG_RANK": "1", "STEPSCOPE_TEST_DDP_HANG_STEP": "3",
                                       "STEPSCOPE_DDP_HANG_S": "5"})
        self.assertEqual(rc, 1, err)
        failure = error_of(lines)
        self.assertEqual(failure["category"], "distributed-failed", failure)
        self.assertIn("rank 1 silent for", failure["message"])
        self.assertIn("while rank 0 reached step 3", failure["message"])
        self.assert_nothing_left()

    def test_a_cancel_reaches_the_ranks(self):
        self.config["steps"] = 500  # long enough to be cancelled in the middle
        config = json.dumps({"runtime": "python", **self.config})
        proc = subprocess.Popen([sys.executable, "-u", WORKER, "--config", config],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "TMPDIR": self.tmp.name})
        lines = []
        try:
            for line in proc.stdout:
                lines.append(json.loads(line))
                if lines[-1]["type"] == "steps" and lines[-1]["first"] >= 3:
                    break
            proc.terminate()
            rest, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        lines += [json.loads(line) for line in rest.splitlines() if line.strip()]
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(error_of(lines)["category"], "cancelled")
        self.assertNotIn("done", [m["type"] for m in lines])
        self.assert_nothing_left()

    def test_ddp_settings_need_world_size_two(self):
        rc, lines, _ = python_worker({**TINY, "ddp_static_graph": True})
        self.assertEqual(rc, 2)
        self.assertEqual(error_of(lines)["category"], "invalid-config")
        self.assertIn("ddp_static_graph", error_of(lines)["message"])


class RankStreamMerge(unittest.TestCase):
    """The merge of the ranks' streams on its own, with the GPU times and memory lines the CPU run
    above cannot produce."""

    def merged(self, feed, profile_problem=""):
        import io

        from stepscope_py import protocol, rank_streams

        out, saved = io.StringIO(), protocol._out
        protocol._out = out
        try:
            streams = rank_streams.RankStreams(2, {"world_size": 2}, lambda: 1.5, profile_problem)
            for rank, message in feed:
                streams.feed(rank, message)
                streams.pump()
        finally:
            protocol._out = saved
        return [json.loads(line) for line in out.getvalue().splitlines()], streams.finished

    def test_slowest_rank_in_a_single_workers_order(self):
        def rank(r, slower):
            k = 2.0 if slower else 1.0
            return [(r, {"type": "hello", "protocol": 1, "env": {"device": f"cuda:{r}"}}),
                    (r, {"type": "ready", "setup_s": 1.0}),
                    (r, {"type": "first_step", "wall_s": 0.5 * k}),
                    (r, {"type": "steps", "first": 1, "gpu_ms": [], "wall_ms": [500.0 * k]}),
                    (r, {"type": "phase", "phase": "compiling", "elapsed_s": 2.0 * k}),
                    (r, {"type": "steps", "first": 2, "gpu_ms": [3.0 * k, 2.0], "wall_ms": [4.0, 3.0 * k]}),
                    (r, {"type": "gpu_state", "state": {"sm_clock_mhz": str(r)}}),
                    (r, {"type": "memory", "peak_allocated": 10 + r, "peak_reserved": 30 - r}),
                    (r, {"type": "check", "losses": [float(r)]}),
                    (r, {"type": "done", "steps": 3, "mean_wall_ms": 3.0 * k})]

        # Rank 0 says everything first; nothing merged may come before rank 1 has said its part.
        lines, finished = self.merged(rank(0, False) + rank(1, True), "no profiles")
        self.assertTrue(finished)
        plain = [m for m in lines if m["type"] not in ("rank_steps", "phase")]
        self.assertEqual([m["type"] for m in plain],
                         ["hello", "ready", "first_step", "steps", "steps", "gpu_state", "memory", "check", "profile",
                          "done"])
        self.assertEqual(plain[0]["env"], {"device": "cuda:0", "world_size": "2"})
        self.assertEqual(plain[1]["setup_s"], 1.5)
        self.assertEqual(plain[2]["wall_s"], 1.0)
        self.assertEqual((plain[3]["first"], plain[3]["gpu_ms"], plain[3]["wall_ms"]), (1, [], [1000.0]))
        self.assertEqual((plain[4]["first"], plain[4]["gpu_ms"], plain[4]["wall_ms"]), (2, [6.0, 2.0], [4.0, 6.0]))
        self.assertEqual(plain[5]["state"], {"sm_clock_mhz": "0"})
        self.assertEqual((plain[6]["peak_allocated"], plain[6]["peak_reserved"]), (11, 30))
        self.assertEqual(plain[7]["losses"], [0.0])
        self.assertEqual(plain[8], {"type": "profile", "steps": 0, "problem": "no profiles"})
        self.assertEqual((plain[9]["steps"], plain[9]["mean_wall_ms"]), (3, 6.0))
        self.assertEqual([(m["rank"], m["first"]) for m in lines if m["type"] == "rank_steps"],
                         [(0, 1), (0, 2), (1, 1), (1, 2)])
        # Phases from either rank, never back in time (rank 1's later 4 s passes, its 2 s does not),
        # and none before ready: rank 0's, said while rank 1 was not ready, waited for it.
        self.assertEqual([m["elapsed_s"] for m in lines if m["type"] == "phase"], [2.0, 4.0])
        kinds = [m["type"] for m in lines]
        self.assertLess(kinds.index("ready"), kinds.index("phase"))

    def test_nothing_ends_while_a_rank_has_not_said_done(self):
        feed = [(r, m) for r in (0, 1) for m in ({"type": "steps", "first": 1, "gpu_ms": [], "wall_ms": [1.0]},)]
        feed.append((0, {"type": "done", "steps": 1, "mean_wall_ms": 1.0}))
        lines, finished = self.merged(feed)
        self.assertFalse(finished)
        self.assertNotIn("done", [m["type"] for m in lines])


if __name__ == "__main__":
    unittest.main()
