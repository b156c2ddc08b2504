"""The models a run can train (issue 30), built by the Python worker's models.py and run through a
short CPU sweep of the worker: a torchvision model, tiny timm and transformers models built from
their configs, and each shape of a factory; every refusal and every broken factory named.

    python -m unittest -v test_models      (in tests/python, STEPSCOPE_BIN_DIR: the build's bin/)
"""
import os
import sys
import unittest

import tempfile

from test_worker import NATIVE, TINY, WORKER, error_of, python_worker, run_worker

BIN = os.environ.get("STEPSCOPE_BIN_DIR", "")
sys.path.insert(0, BIN)
FACTORIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "models")
FACTORY_FILE = os.path.join(FACTORIES, "tiny_factories.py")
# The worker imports module:factory names from its Python path.
ENV = {"PYTHONPATH": FACTORIES + os.pathsep + os.environ.get("PYTHONPATH", "")}

TINY_GPT2 = "hf:gpt2,n_layer=1,n_embd=32,n_head=2"
TINY_BERT = "hf:bert,num_hidden_layers=1,hidden_size=32,num_attention_heads=2,intermediate_size=64"


def run(model, **settings):
    return python_worker({**TINY, "model": model, **settings}, ENV)


def steps_of(lines):
    return sum(len(m.get("wall_ms", [])) for m in lines if m["type"] == "steps")


class ModelsTrain(unittest.TestCase):
    """Each kind of model name trains: every planned step arrives and the losses are finite."""

    def assert_trains(self, model, **settings):
        rc, lines, err = run(model, **settings)
        self.assertIsNone(error_of(lines), f"{model}: {error_of(lines)}\n{err[-2000:]}")
        self.assertEqual(rc, 0, err[-2000:])
        self.assertEqual(steps_of(lines), 1 + TINY["warmup_steps"] + TINY["steps"], model)
        # Issue 30.4: before ready, the model's description, parameters and counted training FLOPs.
        kinds = [m["type"] for m in lines]
        self.assertEqual(kinds.count("model"), 1, kinds)
        self.assertLess(kinds.index("model"), kinds.index("ready"))
        facts = lines[kinds.index("model")]
        self.assertTrue(facts["description"].startswith(model.split(",")[0]),
                        facts)
        self.assertGreater(facts["parameters"], 0, facts)
        self.assertEqual(facts.get("flops_source"), "torch.utils.flop_counter", facts)
        self.assertGreater(facts["training_flops"], facts["forward_flops"], facts)
        self.assertGreater(facts["forward_flops"], 0, facts)
        return lines

    def test_torchvision(self):
        self.assert_trains("torchvision:mobilenet_v3_small")

    def test_timm(self):
        self.assert_trains("timm:test_vit")

    def test_hf_language_models_from_their_config(self):
        self.assert_trains(TINY_GPT2, sequence_length=16)
        self.assert_trains(TINY_BERT, sequence_length=16)

    def test_factories_of_every_shape(self):
        for name in ("tiny_factories:image_net", "tiny_factories:image_net,width=4", "tiny_factories:gray_images",
                     "tiny_factories:tokens", "tiny_factories:regression", FACTORY_FILE + ":tokens"):
            with self.subTest(name=name):
                self.assert_trains(name)

    def test_channels_last_on_an_image_model(self):
        self.assert_trains("timm:test_resnet", channels_last=True)


class ModelFacts(unittest.TestCase):
    """The FLOPs of a step, counted at setup on the meta device (model_facts.py), in this process."""

    @classmethod
    def setUpClass(cls):
        import torch
        from stepscope_py import model_facts, models
        cls.torch, cls.model_facts, cls.models = torch, model_facts, models

    def workload(self, model, batch=2, **settings):
        from types import SimpleNamespace
        config = SimpleNamespace(model=model, image_size=32, classes=10, sequence_length=16, **settings)
        workload = self.models.build(config)
        inputs, target = workload.make_batch(batch, self.torch.device("cpu"))
        return workload, inputs, target

    def test_resnet18_counter_agrees_with_the_layer_count(self):
        # The native worker's layer count, resnet18TrainingFlops(2, 32, 10) in core/config/resnet18_flops.cpp;
        # tests/core/test_compute.cpp (LayerCountOfTheSmallShapeTheCounterIsCheckedAgainst) pins the C++
        # side to the same number, so a side that drifts by more than 2% fails its own test.
        layer_count = 434565120.0
        workload, inputs, target = self.workload("resnet18")
        forward, training, problem = self.model_facts.count_training_flops(workload, inputs, target)
        self.assertEqual(problem, "")
        self.assertLess(abs(training - layer_count) / layer_count, 0.02, training)
        self.assertAlmostEqual(forward * 3, training, delta=0.05 * training)

    def test_counting_touches_neither_the_model_nor_the_generator_nor_cuda(self):
        import time
        torch = self.torch
        workload, inputs, target = self.workload("resnet18", batch=8)
        before = {k: v.clone() for k, v in workload.model.state_dict().items()}
        rng = torch.random.get_rng_state()
        start = time.perf_counter()
        facts, seconds = self.model_facts.facts(workload, inputs, target)
        took = time.perf_counter() - start
        self.assertLess(took, 10, "counting runs on meta tensors: seconds at most")
        self.assertLessEqual(seconds, took)
        self.assertFalse(torch.cuda.is_initialized(), "the count initialised CUDA")
        self.assertTrue(torch.equal(torch.random.get_rng_state(), rng), "the count drew from the CPU generator")
        for name, value in workload.model.state_dict().items():
            self.assertEqual(value.device.type, "cpu", name)
            self.assertTrue(torch.equal(value, before[name]), f"{name} changed (batch-norm statistics?)")
        self.assertTrue(all(p.grad is None for p in workload.model.parameters()), "gradients left on the model")
        self.assertEqual(facts["parameters"], 11_181_642)
        self.assertGreater(facts["training_flops"], 0)

    def test_flops_scale_with_the_batch(self):
        one = self.model_facts.count_training_flops(*self.workload(TINY_GPT2, batch=1))[1]
        four = self.model_facts.count_training_flops(*self.workload(TINY_GPT2, batch=4))[1]
        self.assertAlmostEqual(four / one, 4.0, delta=0.01)

    def test_a_model_that_cannot_run_on_meta_gets_no_figure_and_says_why(self):
        torch = self.torch

        class ReadsAValue(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 2)

            def forward(self, x):
                if x.sum().item() > 0:  # data-dependent: no value on meta
                    return self.linear(x)
                return self.linear(-x)

        workload = self.models.Workload(ReadsAValue(), None, torch.nn.functional.cross_entropy, "custom", "reads (x)")
        facts, _ = self.model_facts.facts(workload, torch.randn(2, 4), torch.tensor([0, 1]))
        self.assertNotIn("training_flops", facts)
        self.assertNotIn("flops_source", facts)
        self.assertIn("meta device", facts["flops_problem"])
        self.assertEqual(facts["parameters"], 10)


class ModelsRefused(unittest.TestCase):
    """What cannot run is refused by name before a step, and nothing is reported as a result."""

    def assert_fails(self, model, category, *words, **settings):
        rc, lines, err = run(model, **settings)
        error = error_of(lines)
        self.assertIsNotNone(error, f"{model} ran: {err[-2000:]}")
        self.assertNotEqual(rc, 0)
        self.assertEqual(error["category"], category, error)
        text = error["message"] + " " + error.get("detail", "")
        for word in words:
            self.assertIn(word, text, error)
        self.assertEqual(steps_of(lines), 0, f"{model}: a step was reported before the failure")
        return error

    def test_channels_last_on_token_ids(self):
        self.assert_fails(TINY_GPT2, "invalid-config", "channels_last", "token ids", channels_last=True,
                          sequence_length=16)

    def test_unknown_names_of_each_library(self):
        self.assert_fails("torchvision:no_such_net", "invalid-config", "no model 'no_such_net'")
        self.assert_fails("timm:no_such_net", "invalid-config", "no model 'no_such_net'")
        self.assert_fails("hf:no_such_arch", "invalid-config", "no architecture 'no_such_arch'")

    def test_a_sequence_longer_than_the_model_has_positions(self):
        self.assert_fails(TINY_GPT2 + ",n_positions=8", "invalid-config", "sequence_length 16", sequence_length=16)

    def test_a_factory_that_raises_is_named_with_its_trace(self):
        error = self.assert_fails("tiny_factories:raises", "model-failed", "raised RuntimeError",
                                  "could not find its weights")
        self.assertIn("tiny_factories.py", error["detail"])  # the user's own line, to fix

    def test_a_factory_of_the_wrong_type(self):
        self.assert_fails("tiny_factories:wrong_type", "model-failed", "returned str", "torch.nn.Module")

    def test_a_missing_module_file_or_function(self):
        self.assert_fails("no_such_module:make", "model-failed", "importing no_such_module failed")
        self.assert_fails("/nonexistent/net.py:make", "invalid-config", "does not exist")
        self.assert_fails("tiny_factories:no_such_function", "invalid-config", "no function 'no_such_function'")


class NativeFromTorchScript(unittest.TestCase):
    """Issue 30.3: the Python worker's --export-torchscript, then the native worker on the file: the
    same seed gives the same weights and batch, so without dropout the losses are the Python run's."""

    def losses(self, lines):
        return next(m["losses"] for m in lines if m["type"] == "check")

    def export_and_train(self, model, **settings):
        config = {**TINY, "model": model, "runtime": "native", **settings}
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.pt")
            rc, lines, err = run_worker([sys.executable, "-u", WORKER, "--export-torchscript", path], config, ENV)
            self.assertIsNone(error_of(lines), err[-2000:])
            self.assertEqual([m["type"] for m in lines][-1], "done")
            rc, native, err = run_worker([NATIVE, "--module", path], config)
            self.assertEqual(rc, 0, err[-2000:])
        facts = next(m for m in native if m["type"] == "model")
        self.assertIn("traced to TorchScript", facts["description"])
        rc, python, err = python_worker({**config, "runtime": "python"}, ENV)
        self.assertEqual(rc, 0, err[-2000:])
        return self.losses(native), self.losses(python)

    def test_a_language_model_with_tied_weights_trains_as_in_python(self):
        # GPT-2 ties its output layer to its embedding: listed twice, the weight would be updated twice.
        native, python = self.export_and_train(TINY_GPT2 + ",resid_pdrop=0,embd_pdrop=0,attn_pdrop=0",
                                               sequence_length=16)
        self.assertEqual(len(native), len(python))
        for a, b in zip(native, python):
            self.assertAlmostEqual(a, b, delta=1e-5 * abs(b))

    def test_a_batch_that_is_not_all_tensors_is_refused_by_name(self):
        config = {**TINY, "model": "tiny_factories:flagged", "runtime": "native"}
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.pt")
            rc, lines, _ = run_worker([sys.executable, "-u", WORKER, "--export-torchscript", path], config, ENV)
            self.assertFalse(os.path.exists(path))
        self.assertEqual(rc, 1)
        self.assertEqual(error_of(lines)["category"], "model-failed")
        self.assertIn("holds a float", error_of(lines)["message"])

    def test_the_native_worker_refuses_another_model_without_its_export(self):
        rc, lines, _ = run_worker([NATIVE], {**TINY, "model": "tiny_factories:image_net"})
        self.assertEqual(error_of(lines)["category"], "invalid-config")
        self.assertIn("--module", error_of(lines)["message"])


if __name__ == "__main__":
    unittest.main()
