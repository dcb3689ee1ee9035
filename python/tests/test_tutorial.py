"""docs/python.md runs as written: its Python blocks in order in one
namespace, then its C program compiled with the shell block's command and
run, printing what the Python side computed with PyTorch."""
import os
import re
import subprocess

import numpy as np
import pytest

pytest.importorskip("torch")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(ROOT, "docs", "python.md")


def blocks(lang):
    with open(DOC) as f:
        text = f.read()
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


def build_dir():
    lib = os.environ.get("MLCC_LIBRARY")
    return os.path.dirname(os.path.abspath(lib)) if lib else os.path.join(ROOT, "build")


def test_tutorial(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ns = {"__name__": "tutorial"}
    for code in blocks("python"):
        exec(compile(code, DOC, "exec"), ns)
    out = capsys.readouterr().out
    assert "refused:" in out and "sch.split(" in out
    assert sorted(os.listdir("mlp_model")) == ["model.c", "model.h", "model.so", "params.bin"]
    expected = np.load("expected.npy")
    # the tuner's section: one record per trial, at least one kernel tuned by them
    with open("mlp.jsonl") as f:
        assert len(f.read().splitlines()) == 8
    assert ns["tuned"].records_applied[0] >= 1
    np.testing.assert_allclose(ns["tuned"]["main"](ns["x"].numpy()), expected, rtol=1e-4, atol=1e-5)
    if os.environ.get("SAN") == "1":
        return  # the runtime archive is built with the sanitizers; a plain link cannot use it
    (c_code,) = blocks("c")
    (tmp_path / "mlp_main.c").write_text(c_code)
    os.symlink(os.path.join(ROOT, "include"), "include")
    os.symlink(build_dir(), "build")
    (sh,) = [b for b in blocks("sh") if "mlp_main" in b]
    script = re.sub(r"\s*#.*", "", sh.replace("\\\n", " "))  # comments off, continuations joined
    res = subprocess.run(["sh", "-ec", script], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = np.array([float(v) for v in res.stdout.split()], dtype="float32")
    np.testing.assert_allclose(got, expected.reshape(-1), rtol=1e-4, atol=1e-5)
