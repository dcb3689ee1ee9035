"""ort_side.py - ONNX Runtime's half of the model benchmark, and the checks
that need numpy.

  ort_side.py ref MODEL.onnx IN.npz OUT.npz [NAME:DIMS | NAME=V,...]...
      make the seeded random input (shape from the model, symbolic dims
      given as NAME:1x3x48x320), save it to IN.npz and ORT's outputs to OUT.npz;
      an input given as NAME=V,... (mlcc's --input-value) has those values
      and is left out of IN.npz, being no input of the compiled model
  ort_side.py time MODEL.onnx IN.npz THREADS BUDGET_MS MIN_REPS
      one warm-up run, then timed runs: at least MIN_REPS, and more while
      they took less than BUDGET_MS in all (at most 10000); prints
      "ms T1 T2 ..." on one line
  ort_side.py compare REF.npz GOT.npz TOL
      for every output (paired by name): max |got - ref| / max |ref| <= TOL;
      prints the worst ratio and exits 1 when it is above TOL

The session uses THREADS intra-op threads and one inter-op thread, sequential
execution and ORT's default graph optimizations (all of them): the ORT that
people deploy.  Spinning of idle ORT threads is switched off, since the
timed processes alternate on a shared machine.
"""
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def session(path, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


NUMPY_OF = {"tensor(float)": np.float32, "tensor(int64)": np.int64, "tensor(int32)": np.int32}


def ref(model, in_path, out_path, shapes):
    given = dict(s.split(":", 1) for s in shapes if ":" in s)
    fixed = dict(s.split("=", 1) for s in shapes if "=" in s and ":" not in s)
    sess = session(model, 1)
    rng = np.random.default_rng(1234)
    feeds, fixed_feeds = {}, {}
    for inp in sess.get_inputs():
        if inp.name in fixed:
            if inp.type not in NUMPY_OF:
                sys.exit(f"ort_side.py: input {inp.name} is {inp.type}: no value can be given")
            v = np.array([float(x) for x in fixed[inp.name].split(",")], dtype=NUMPY_OF[inp.type])
            fixed_feeds[inp.name] = v.reshape([d if isinstance(d, int) else -1 for d in inp.shape])
            continue
        if inp.type != "tensor(float)":
            sys.exit(f"ort_side.py: input {inp.name} is {inp.type}, only float inputs are made")
        if inp.name in given:
            dims = [int(d) for d in given[inp.name].split("x")]
        else:
            dims = inp.shape
            if not all(isinstance(d, int) and d > 0 for d in dims):
                sys.exit(f"ort_side.py: input {inp.name} has shape {dims}: give it as {inp.name}:DIMS")
        feeds[inp.name] = rng.uniform(-1.0, 1.0, dims).astype(np.float32)
    outs = sess.run(None, {**feeds, **fixed_feeds})
    np.savez(in_path, **feeds)
    np.savez(out_path, **{o.name: v for o, v in zip(sess.get_outputs(), outs)})


def timing(model, in_path, threads, budget_ms, min_reps):
    # MLC_BENCH_CLOCK=cpu (run.sh's CLOCK): the process's CPU time, as timer.c
    clock = time.process_time if os.environ.get("MLC_BENCH_CLOCK") == "cpu" else time.perf_counter
    sess = session(model, threads)
    with np.load(in_path) as z:
        feeds = {k: z[k] for k in z.files}
    sess.run(None, feeds)
    times = []
    while len(times) < 10000 and (len(times) < min_reps or sum(times) < budget_ms):
        t0 = clock()
        sess.run(None, feeds)
        times.append((clock() - t0) * 1e3)
    print("ms " + " ".join(f"{t:.4f}" for t in times))


def compare(ref_path, got_path, tol):
    """outputs pair up by name: mlcc keeps the model's output names"""
    worst = 0.0
    with np.load(ref_path) as r, np.load(got_path) as g:
        if sorted(r.files) != sorted(g.files):
            print(f"outputs {sorted(g.files)}, expected {sorted(r.files)}")
            return 1
        for name in r.files:
            a, b = r[name], g[name]
            if a.shape != b.shape:
                print(f"output {name}: shape {b.shape}, expected {a.shape}")
                return 1
            scale = float(np.max(np.abs(a))) or 1.0
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b))) / scale)
    print(f"{worst:.1e}")
    return 0 if worst <= tol else 1


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "ref" and len(argv) >= 5:
        ref(argv[2], argv[3], argv[4], argv[5:])
    elif cmd == "time" and len(argv) == 7:
        timing(argv[2], argv[3], int(argv[4]), float(argv[5]), int(argv[6]))
    elif cmd == "compare" and len(argv) == 5:
        return compare(argv[2], argv[3], float(argv[4]))
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
