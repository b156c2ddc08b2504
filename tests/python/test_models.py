"""The models a run can train (issue 30), built by the Python worker's models.py and run through a
short CPU sweep of the worker: a torchvision model, tiny timm and transformers models built from
their configs, and each shape of a factory; every refusal and every broken factory named.

    python -m unittest -v test_models      (in tests/python, STEPSCOPE_BIN_DIR: the build's bin/)
"""
import os
import sys
import unittest

from test_worker import TINY, error_of, python_worker

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


if __name__ == "__main__":
    unittest.main()
