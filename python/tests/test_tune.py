"""Automatic optimization with the tuner: mlcc.tune searches schedules for
the course's mm_relu and for the kernels of a small model, measuring a
handful of candidates on this machine; the records it writes are applied
by build and compile, and every result is compared with numpy.  The
records are read here with Python's own json module, independently of the
library that wrote them."""
import json
import os
import re

import numpy as np
import pytest

import mlcc
from test_tensor_program import MM_RELU, inputs, mm_relu_ref

GRAPH = '''
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 32), "float32"), w: R.Tensor((32, 64), "float32"),
             b: R.Tensor((64,), "float32")) -> R.Tensor((16, 64), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.add(lv0, b)
            out = R.nn.relu(lv1)
            R.output(out)
        return out
'''


def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """mm_relu tuned with 4 trials, then 2 more from the same file"""
    path = str(tmp_path_factory.mktemp("tune") / "mm.jsonl")
    mod = mlcc.parse(MM_RELU)
    assert mlcc.tune(mod, path, trials=4, batch=4, seed=1) == path
    first = read_records(path)
    mlcc.tune(mod, path, trials=2, batch=2, seed=2)
    return mod, path, first, read_records(path)


def test_tune_writes_one_record_per_trial(tuned):
    mod, path, first, records = tuned
    assert len(first) == 4
    assert records[:4] == first                      # a rerun appends and keeps what was there
    assert len(records) == 6
    assert {r["func"] for r in records} == {"mm_relu"}
    assert len({r["workload"] for r in records}) == 1
    # a candidate is its space and decisions: none is measured twice, across runs too
    assert len({(r["space"], r["decisions"]) for r in records}) == 6
    ok = [r for r in records if r["seconds"] is not None]
    assert ok, "no candidate ran: %s" % [r.get("error") for r in records]
    for r in ok:
        assert r["seconds"] > 0 and r["gflops"] > 0
        assert "sch.get_block" in r["trace"]


def test_build_with_records_matches_numpy(tuned):
    mod, path, _, records = tuned
    lib = mlcc.build(mod, records=path)
    assert lib.records_applied == (1, 0)
    a, b = inputs()
    np.testing.assert_allclose(lib["mm_relu"](a, b), mm_relu_ref(a, b), rtol=1e-4, atol=1e-4)
    # the schedule applied is the fastest record's
    best = min((r for r in records if r["seconds"] is not None), key=lambda r: r["seconds"])
    sch = mlcc.Schedule(mod)
    sch.replay(best["trace"])
    applied = mlcc.apply_records(mod, path)
    assert applied.records_applied == (1, 0)
    text = applied.script()
    assert '"tuned"' in text
    assert re.sub(r', "tuned": "[^"]*"', "", text) == sch.mod.script()
    assert not mlcc.structural_equal(applied, mod)


def test_records_merge_and_stay_on_their_target(tuned, tmp_path):
    mod, path, _, records = tuned
    # two files merged give the same schedule as the one
    half1, half2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    half1.write_text("".join(json.dumps(r) + "\n" for r in records[:3]))
    half2.write_text("".join(json.dumps(r) + "\n" for r in records[3:]))
    merged = mlcc.apply_records(mod, [str(half1), half2])
    assert mlcc.structural_equal(merged, mlcc.apply_records(mod, path))
    # records measured with another thread count are another target's
    other = tmp_path / "other.jsonl"
    moved = [dict(r, target=dict(r["target"], threads=r["target"]["threads"] + 7)) for r in records]
    other.write_text("".join(json.dumps(r) + "\n" for r in moved))
    lib = mlcc.build(mod, records=str(other))
    assert lib.records_applied == (0, 0)
    a, b = inputs()
    np.testing.assert_allclose(lib["mm_relu"](a, b), mm_relu_ref(a, b), rtol=1e-4, atol=1e-4)


def test_tune_a_model_then_compile_with_records(tmp_path):
    # parallel code run in this process first: the tuner's measuring child
    # is a fork of it, and must not wait on the parent's worker threads
    sch = mlcc.Schedule(mlcc.parse(MM_RELU))
    sch.parallel(sch.get_loops(sch.get_block("Y"))[0])
    a, b = inputs()
    np.testing.assert_allclose(mlcc.build(sch.mod)["mm_relu"](a, b), mm_relu_ref(a, b), rtol=1e-4, atol=1e-4)
    mod = mlcc.parse(GRAPH)
    path = str(tmp_path / "model.jsonl")
    mlcc.tune(mod, path, trials=4, batch=2, seed=3)
    records = read_records(path)
    assert len(records) == 4
    lib = mlcc.compile(mod, str(tmp_path / "out"), records=path)
    assert lib.records_applied[0] >= 1 and lib.records_applied[1] == 0
    assert os.path.exists(tmp_path / "out" / "model.so")
    rng = np.random.default_rng(5)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((16, 32), (32, 64), (64,)))
    np.testing.assert_allclose(lib["main"](x, w, b), np.maximum(x @ w + b, 0), rtol=1e-4, atol=1e-4)


def test_bad_tuning_calls_raise(tmp_path):
    mod = mlcc.parse(MM_RELU)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"workload": "40e2813038fc8a52"\n')
    with pytest.raises(mlcc.Error, match="bad.jsonl"):
        mlcc.build(mod, records=str(bad))
    with pytest.raises(mlcc.Error, match="bad.jsonl"):
        mlcc.tune(mod, str(bad), trials=1)
    with pytest.raises(mlcc.Error, match="missing.jsonl"):
        mlcc.apply_records(mod, str(tmp_path / "missing.jsonl"))
    with pytest.raises(mlcc.Error, match="cannot open for writing"):
        mlcc.tune(mod, str(tmp_path / "no" / "such" / "x.jsonl"), trials=1)
    with pytest.raises(TypeError):
        mlcc.tune(mod, str(tmp_path / "x.jsonl"), trials="4")
    with pytest.raises(ValueError):
        mlcc.tune(mod, str(tmp_path / "x.jsonl"), trials=0)
    with pytest.raises(TypeError):
        mlcc.tune(42, str(tmp_path / "x.jsonl"))
    with pytest.raises(TypeError):
        mlcc.build(mod, records=3)
    assert not os.path.exists(tmp_path / "x.jsonl")
