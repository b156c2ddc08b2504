"""The run configuration, parsed and validated by the C++ table's rules.

The fields, choices, ranges, defaults, cross-field rules and refusal messages are not written here:
the build writes core/config/config_table.cpp into config_schema.json beside this file
(stepscope-config-schema), and this module reads it. To add a knob, edit that table. What is code
here is the reading: as core/config/config_json.cpp reads a JSON object (members in key order, every
value as text first, then the field's parser), so that both workers refuse a configuration alike:
the same fields, the same messages, in the same order (tests/data/invalid_configs.json).
"""
import json
import math
import os
import re

from . import affinity
from .failure import WorkerFailure

SCHEMA_FORMAT = "stepscope-config-schema"  # kConfigSchemaFormat, core/config/config_schema.h
SCHEMA_VERSION = 2  # the version this module reads (kConfigSchemaVersion)
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config_schema.json")

_schema = None

# Keys the configuration no longer has that a supervisor of an earlier release may still send:
# accepted and ignored when the schema does not know them (any other unknown key is refused). The
# start state (fresh, shipped, again) is the run's, told by STEPSCOPE_START (compiled.start_state),
# no longer the configuration's compile_cache (cold, warm). While the schema still has the field,
# the table's rules apply to it as to any other (both workers refuse alike), and nothing reads it.
RETIRED_KEYS = ("compile_cache",)


def load_schema(path=SCHEMA_PATH):
    """The schema at `path`; a missing, unreadable or foreign file is an `internal` failure that says
    what to do (the worker cannot check a configuration without it)."""
    fix = "rebuild Stepscope (the build writes it beside stepscope_worker.py) or reinstall it"
    try:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
    except FileNotFoundError:
        raise WorkerFailure("internal", f"the configuration schema {path} is missing; {fix}") from None
    except (OSError, ValueError) as exc:
        raise WorkerFailure("internal", f"the configuration schema {path} cannot be read ({exc}); {fix}") from None
    found = (schema.get("format"), schema.get("version")) if isinstance(schema, dict) else (None, None)
    if found != (SCHEMA_FORMAT, SCHEMA_VERSION):
        raise WorkerFailure("internal", f"{path} is not the configuration schema this worker reads (format "
                                        f"{found[0]!r}, version {found[1]!r}; expected {SCHEMA_FORMAT!r}, version "
                                        f"{SCHEMA_VERSION}); {fix}")
    return schema


def schema():
    global _schema
    if _schema is None:
        _schema = load_schema()
    return _schema


def _fields():
    return {f["key"]: f for f in schema()["fields"]}


class Config:
    """One configuration: an attribute per field of the schema, named by its JSON key."""

    def __init__(self, values):
        self.__dict__.update(values)

    @property
    def on_cuda(self):
        return self.device.startswith("cuda")

    @property
    def compiled(self):
        return self.compile != "none"

    @property
    def total_steps(self):
        return 1 + self.warmup_steps + self.steps

    @property
    def uses_cudagraphs(self):
        """Whether what was asked for replays CUDA graphs (so a skip means it is not what was asked)."""
        if self.compile_backend == "cudagraphs":
            return True
        return self.compile_backend == "inductor" and self.compile in ("reduce-overhead", "max-autotune")


def _text(value):
    """A field's value as the rules and messages see it (valueText in config_table.cpp)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _fill(template, values):
    """`template` with each "{name}" replaced by values[name]; unknown names stay (fillMessage)."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)


def _member_text(value):
    """A JSON member's value as text, as fromJson makes it; None for arrays, objects and null."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        try:
            v = float(value)  # Qt reads every JSON number as a double
        except OverflowError:  # an integer beyond any double: Qt reads it as infinity
            return "inf" if value > 0 else "-inf"
        if math.isfinite(v) and abs(v) < 9.2e18 and v == math.trunc(v):
            return str(int(v))
        return f"{v:g}"  # QString::number(double): six significant digits
    if isinstance(value, str):
        return value
    return None


def _parse_int(text, lo, hi):
    """Digits with an optional minus, nothing else, from lo to hi (parseInt in run_config.cpp)."""
    if not re.fullmatch(r"-?[0-9]+", text):
        return None
    n = int(text)
    return n if lo <= n <= hi else None


def _parse_value(field, text):
    """(value, None), or (None, message) when `field` does not allow `text` (setField)."""
    kind, value = field["kind"], None
    if kind == "choice":
        value = text if text in field["choices"] else None
    elif kind == "flag":
        words = schema()["flag_words"]
        value = True if text in words["true"] else False if text in words["false"] else None
    elif kind == "integer":
        value = _parse_int(text, field["min"], field["max"])
    elif kind == "device":
        index = text[len("cuda:"):] if text.startswith("cuda:") else None
        if text in ("cpu", "cuda") or (index is not None and _parse_int(index, field["min"], field["max"]) is not None):
            value = text
    elif kind == "model":
        value = text if re.fullmatch(field["pattern"], text) else None
    elif kind == "core_list":
        if text in field["words"]:
            return text, None
        try:
            return affinity.format_core_list(affinity.parse_core_list(text, field["max"] + 1)), None
        except ValueError as exc:
            return None, _fill(schema()["messages"]["not_a_core_list"], {"why": str(exc), "allowed": field["allowed"]})
    else:
        raise WorkerFailure("internal", f"the configuration schema has a field {field['key']} of unknown kind {kind}")
    if value is None:
        return None, _fill(schema()["messages"]["not_allowed"],
                           {"value": text, "key": field["key"], "allowed": field["allowed"]})
    return value, None


def _defaults():
    return {key: f["default"] for key, f in _fields().items()}


def from_json(obj, base=None):
    """(Config, [(field, message)]): the members of `obj` on top of the defaults and `base`, as
    fromJson in core/config/config_json.cpp applies them."""
    fields, s = _fields(), schema()
    values = {**_defaults(), **(base or {})}
    errors = []
    for key in sorted(obj):  # a QJsonObject iterates its keys sorted: the same order of errors
        value = obj[key]
        if key in s["sweep_keys"]:
            if not isinstance(value, bool):
                errors.append((key, s["sweep_keys"][key]))
            continue
        if key in RETIRED_KEYS and key not in fields:
            continue  # whatever its value: nothing reads it
        text = _member_text(value)
        if text is None:
            errors.append((key, s["messages"]["not_a_value"]))
            continue
        if key not in fields:
            errors.append((key, _fill(s["messages"]["unknown_setting"], {"key": key, "known": ", ".join(fields)})))
            continue
        parsed, problem = _parse_value(fields[key], text)
        if problem:
            errors.append((key, problem))
        else:
            values[key] = parsed
    return Config(values), errors


def validate(config):
    """Every rule of the table that `config` breaks, in table order, as (field, message)."""
    texts = {key: _text(getattr(config, key)) for key in _fields()}
    errors = []
    for rule in schema()["rules"]:
        if all((texts[w["field"]] in w["in"]) if "in" in w else (texts[w["field"]] not in w["not_in"])
               for w in rule["when"]):
            errors.append((rule["field"], _fill(rule["message"], texts)))
    return errors


def check(obj, base=None):
    """(Config or None, errors) for a decoded JSON value: from_json, then validate when every
    member was fine (parseConfig after the JSON is read)."""
    if not isinstance(obj, dict):
        return None, [("json", schema()["messages"]["not_an_object"])]
    config, errors = from_json(obj, base)
    errors = errors or validate(config)
    return (None if errors else config), errors


def parse_config(text, base=None):
    """(Config or None, errors) for the JSON text the worker is given (parseConfig)."""
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        # Python's parser words its complaint in its own terms; the field and the category are the same.
        return None, [("json", f"not valid JSON: {getattr(exc, 'msg', exc)} at offset {getattr(exc, 'pos', 0)}")]
    return check(obj, base)


def _refuse_constant(name):
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity, which Python would accept


def describe(errors):
    return "\n".join(f"{field}: {message}" for field, message in errors)


def refusal(errors):
    """The invalid-config failure the native worker gives for `errors`: the first, then all."""
    field, message = errors[0]
    return WorkerFailure("invalid-config", f"{field}: {message}", describe(errors))


def parse(obj, base=None):
    """A valid Config from a decoded JSON object; raises WorkerFailure(invalid-config)."""
    config, errors = check(obj, base)
    if errors:
        raise refusal(errors)
    return config
