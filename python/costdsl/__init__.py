"""costdsl for Python: the GPU time of an LLM-serving iteration, and whole deployments.

    import costdsl
    model = costdsl.Model(arch="llama3_70b", gpu="h100", tp=8)
    it = model.iteration(prefill=[(0, 4096)], decode=[1024] * 64)
    it.time_s, it.families, it.coverage

    costdsl.simulate(arch="llama3_8b", gpu="h100", batch=8, isl=1024, osl=128)  # dict
    costdsl.plan(arch="llama3_8b", gpu="h100", gpus=8, isl=1024, osl=128)      # dict

Options are the command line's long flags as keyword arguments (`model_config` for
--model-config; True for a switch; a list repeats a flag), so their meaning, defaults and
error messages are the CLI's: `costdsl eval --help`, `costdsl simulate --help`,
`costdsl plan --help`. simulate, plan and eval return exactly what `--json` prints.
Errors raise costdsl.InputError, ConfigError or DataError (all ValueErrors and
costdsl.Error) with the CLI's message.
"""
import json as _json
import math as _math

from ._native import (ClosedError, ConfigError, DataError, Error, InputError, Iteration,  # noqa: F401
                      version)
from . import _native

__all__ = ["Model", "Predictor", "Iteration", "simulate", "plan", "eval", "version",
           "Error", "InputError", "ConfigError", "DataError", "ClosedError"]


def _options_json(options):
    """Keyword arguments as the C API's options object, refusing what JSON cannot say."""
    for key, value in options.items():
        for v in (value if isinstance(value, (list, tuple)) else (value,)):
            if isinstance(v, float) and not _math.isfinite(v):
                raise InputError(f"option '{key}': {v} is not a finite number")
            if v is not None and not isinstance(v, (str, int, float, bool)):
                raise TypeError(f"option '{key}': a value must be a str, int, float, bool, None or a list of them, "
                                f"got {type(v).__name__}")
    return _json.dumps(options)


class Model(_native.Model):
    """A model opened once (arch or model_config, layout, quantization, gpu, timing) and
    asked for iterations: `time(prefill, decode)` in seconds, or `iteration(...)` for the
    breakdown. prefill: [(cached_tokens, new_tokens), ...]; decode: [kv_length, ...].
    Safe to share between threads. Use as a context manager, or close() it."""

    def __init__(self, **options):
        super().__init__(_options_json(options))

    def predictor(self):
        """A Predictor on this model: one call per batch."""
        return Predictor(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Predictor:
    """What a serving simulator's scheduler asks each iteration: the seconds its batch
    takes. `predictor(prefill=[(cached, new), ...], decode=[kv, ...])`."""

    __slots__ = ("_time",)

    def __init__(self, model):
        if not isinstance(model, _native.Model):
            raise TypeError(f"Predictor: a costdsl.Model is needed, got {type(model).__name__}")
        self._time = model.time

    def __call__(self, prefill=(), decode=()):
        return self._time(prefill, decode)


def _run(command, options):
    return _json.loads(_native.run_json(command, _options_json(options)))


def simulate(**options):
    """`costdsl simulate ... --json` as a dict: one pinned deployment under one load."""
    return _run("simulate", options)


def plan(**options):
    """`costdsl plan ... --json` as a dict: the deployment search."""
    return _run("plan", options)


def eval(**options):  # noqa: A001 (the CLI's name)
    """`costdsl eval ... --json` as a dict: one iteration's tree and slots
    (prefill=["0:4096"], decode=["64x1024"] as on the command line)."""
    return _run("eval", options)
