"""`import costdsl` against the costdsl binary: the same numbers bit for bit for the same
inputs over every shipped arch, the CLI's messages as exceptions, bad input never a crash.
Run by meson (tests/python/meson.build) with PYTHONPATH at the built package and
COSTDSL_BIN the CLI."""
import json
import math
import os
import subprocess
import threading

import pytest

import costdsl

BIN = os.environ["COSTDSL_BIN"]


def cli_json(*args):
    r = subprocess.run([BIN, *args, "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def cli_error(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, (r.returncode, r.stdout)
    return r.stderr.strip().removeprefix("costdsl: error: ")


ARCHS = cli_json("archs")
PREFILL = [(0, 1000), (512, 256)]
DECODE = [300, 1000, 4000, 17]


def layout(arch):
    """The arch's largest TP up to 8, and the CLI flags that say it."""
    tp = max(t for t in arch["tp"] if t <= 8)
    return tp, ["--tp", str(tp)]


@pytest.mark.parametrize("arch", ARCHS, ids=[a["name"] for a in ARCHS])
def test_iteration_equals_cli_eval_bit_for_bit(arch):
    tp, flags = layout(arch)
    want = cli_json("eval", "--arch", arch["name"], "--gpu", "h100", *flags, "--prefill", "0:1000", "--prefill",
                    "512:256", "--decode", "1x300", "--decode", "1x1000", "--decode", "1x4000", "--decode", "1x17")
    with costdsl.Model(arch=arch["name"], gpu="h100", tp=tp) as m:
        it = m.iteration(prefill=PREFILL, decode=DECODE)
        total = want["total"]
        assert it.time_s * 1e3 == total["time_ms"]
        assert it.energy_j == total["energy_j"] and it.flops == total["flops"] and it.bytes == total["bytes"]
        assert it.coverage == total["coverage"]
        assert math.isclose(sum(it.families.values()), it.time_s, rel_tol=1e-12)
        assert m.time(PREFILL, DECODE) == it.time_s
    # eval through the module prints what the CLI prints.
    got = costdsl.eval(arch=arch["name"], gpu="h100", tp=tp, prefill=["0:1000", "512:256"],
                       decode=["1x300", "1x1000", "1x4000", "1x17"])
    assert got == want


def test_simulate_and_plan_equal_the_cli():
    sim = dict(arch="llama3_8b", gpu="h100", batch=8, isl=1024, osl=128, framework="vllm")
    assert costdsl.simulate(**sim) == cli_json("simulate", "--arch", "llama3_8b", "--gpu", "h100", "--batch", "8",
                                               "--isl", "1024", "--osl", "128", "--framework", "vllm")
    dis = dict(arch="qwen3_30b_a3b", gpu="b200", mode="disagg", tp=2, batch=16, prefill_workers=1,
               decode_workers=2, prefill_tp=2, isl=2000, osl=200, concurrency=32)
    assert costdsl.simulate(**dis) == cli_json(
        "simulate", "--arch", "qwen3_30b_a3b", "--gpu", "b200", "--mode", "disagg", "--tp", "2", "--batch", "16",
        "--prefill-workers", "1", "--decode-workers", "2", "--prefill-tp", "2", "--isl", "2000", "--osl", "200",
        "--concurrency", "32")
    plan = dict(arch="llama3_8b", gpu="h100", gpus=2, isl=1000, osl=100, ttft=500, tpot=50, max_batch=16)
    got = costdsl.plan(**plan)
    want = cli_json("plan", "--arch", "llama3_8b", "--gpu", "h100", "--gpus", "2", "--isl", "1000", "--osl", "100",
                    "--ttft", "500", "--tpot", "50", "--max-batch", "16")
    got.pop("elapsed_s", None), want.pop("elapsed_s", None)  # wall time, if a report carries it
    assert got == want


def test_errors_carry_the_cli_message():
    with pytest.raises(costdsl.ConfigError) as e:
        costdsl.Model(arch="llama3_70b", gpu="h100", tp=7)
    assert str(e.value) == cli_error("eval", "--arch", "llama3_70b", "--gpu", "h100", "--tp", "7", "--decode", "1x10")
    with pytest.raises(costdsl.InputError) as e:
        costdsl.Model(arch="llama3_70b", gpu="h300")
    assert str(e.value) == cli_error("eval", "--arch", "llama3_70b", "--gpu", "h300", "--decode", "1x10")
    with pytest.raises(costdsl.InputError) as e:
        costdsl.simulate(arch="llama3_8b", gpu="h100", batch=4)
    assert str(e.value) == cli_error("simulate", "--arch", "llama3_8b", "--gpu", "h100", "--batch", "4")
    # Every package error is a costdsl.Error and a ValueError.
    assert issubclass(costdsl.InputError, costdsl.Error) and issubclass(costdsl.InputError, ValueError)
    with pytest.raises(costdsl.InputError, match="--speed"):
        costdsl.Model(arch="llama3_8b", gpu="h100", speed=3)


@pytest.mark.parametrize("bad, error, message", [
    (dict(decode=[float("nan")]), TypeError, "decode[0]: a whole number is needed, got float nan"),
    (dict(decode=[1.5]), TypeError, "got float 1.5"),
    (dict(decode=[10, -3]), ValueError, "decode[1]: -3 is out of range"),
    (dict(decode=[0]), ValueError, "decode[0]: 0 is out of range"),
    (dict(decode=[2 ** 40]), ValueError, "out of range"),
    (dict(decode=["1024"]), TypeError, "got str"),
    (dict(decode=[True]), TypeError, "got bool"),
    (dict(decode=5), TypeError, "decode: a sequence is needed, got int"),
    (dict(prefill=[(0,)]), TypeError, "prefill[0]: a pair"),
    (dict(prefill=[5]), TypeError, "prefill[0]: a pair"),
    (dict(prefill=[(0, 0)]), ValueError, "prefill new[0]: 0 is out of range"),
    (dict(prefill=[(None, 4)]), TypeError, "got NoneType"),
])
def test_bad_batches_raise(bad, error, message):
    m = costdsl.Model(arch="llama3_8b", gpu="h100")
    with pytest.raises(error) as e:
        m.iteration(**bad)
    assert message in str(e.value)
    assert m.time([(0, 10)], [5]) > 0  # still usable


@pytest.mark.parametrize("options, error, message", [
    (dict(arch="llama3_8b", gpu="h100", tp=float("nan")), costdsl.InputError, "option 'tp': nan is not a finite"),
    (dict(arch="llama3_8b", gpu="h100", tp=object()), TypeError, "option 'tp'"),
    (dict(arch="llama3_8b", gpu="h100", tp=[1, {}]), TypeError, "option 'tp'"),
    (dict(arch="llama3_8b", gpu="h100", tp=-2), costdsl.InputError, "--tp"),
    (dict(arch="llama3_8b"), costdsl.InputError, "--gpu"),
    (dict(model_config="/nonexistent/config.json", gpu="h100"), costdsl.InputError, "/nonexistent/config.json"),
])
def test_bad_options_raise(options, error, message):
    with pytest.raises(error) as e:
        costdsl.Model(**options)
    assert message in str(e.value)


def test_a_closed_model_raises():
    m = costdsl.Model(arch="llama3_8b", gpu="h100")
    m.close()
    assert m.closed
    with pytest.raises(costdsl.ClosedError):
        m.time([], [10])
    m.close()  # twice: nothing
    with pytest.raises(TypeError):
        costdsl.Predictor("not a model")


def test_threads_share_a_model():
    m = costdsl.Model(arch="llama3_70b", gpu="h100", tp=8)
    want = {k: m.time([(0, 256 * k)], [512 * k] * 16) for k in range(1, 5)}
    bad = []

    def run(k):
        for _ in range(200):
            if m.time([(0, 256 * k)], [512 * k] * 16) != want[k]:
                bad.append(k)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(1, 5)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_predictor_is_the_model_time():
    m = costdsl.Model(arch="qwen3_30b_a3b", gpu="b200", tp=2, ep=2)
    p = m.predictor()
    assert p(prefill=[(0, 2048)], decode=[1000] * 8) == m.time([(0, 2048)], [1000] * 8)
    assert p() == 0.0 or p() >= 0.0  # an empty batch is valid
