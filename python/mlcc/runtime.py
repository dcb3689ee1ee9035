"""runtime.py - building modules and calling the compiled code on numpy
arrays.

mlcc.build(mod) compiles a module of prim funcs into a kernels shared
object (functions called in destination-passing style, or with the outputs
left off, which are then allocated and returned), or a module with a graph
function through the graph pipeline into a model (called on its inputs,
returning its outputs).  Inputs are handed over without a copy when they are
C-contiguous numpy arrays of the right dtype; a model's outputs are copied
out, because the model reuses their memory on the next run."""
import ctypes
import os
import shutil
import tempfile
import weakref

from . import _lib
from ._lib import DLTensor, api, lock

_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


def _np():
    import numpy
    return numpy


def _dltensor(arr, keep):
    np = _np()
    if arr.dtype.kind not in _DL_CODES or arr.dtype.byteorder == ">":
        raise TypeError("arrays of dtype %s cannot be passed" % arr.dtype)
    t = DLTensor()
    t.data = arr.ctypes.data
    t.device.device_type, t.device.device_id = 1, 0
    t.ndim = arr.ndim
    t.dtype.code = _DL_CODES[arr.dtype.kind]
    t.dtype.bits = 8 if arr.dtype == np.bool_ else arr.dtype.itemsize * 8
    t.dtype.lanes = 1
    shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    keep.extend([arr, shape])
    t.shape = shape
    t.strides = None
    t.byte_offset = 0
    return t


# DLPack codes of the float types numpy lacks (bfloat16, the 8- and 4-bit
# floats; docs/runtime.md): their names, which mlcc_small_float_decode takes
_SMALL_FLOATS = {4: "bfloat16", 10: "float8_e4m3fn", 11: "float8_e4m3fnuz", 12: "float8_e5m2",
                 13: "float8_e5m2fnuz", 14: "float8_e8m0fnu", 17: "float4_e2m1fn"}


def _storage(t):
    """the numpy dtype of a tensor's storage: its own for the types numpy
    has, raw codes (uint16 for bfloat16, a byte for the 8- and 4-bit floats
    and for int4/int2, which are stored a byte each) for the others"""
    np = _np()
    code, bits = t.dtype.code, t.dtype.bits
    if code == 6:
        return np.dtype(np.bool_)
    if code in _SMALL_FLOATS:
        return np.dtype(np.uint16 if code == 4 else np.uint8)
    kind = {0: "i", 1: "u", 2: "f"}.get(code)
    if kind is None:
        raise TypeError("a tensor of DLPack type code %d has no numpy equivalent" % code)
    return np.dtype("%s%d" % (kind, max(bits, 8) // 8))


def _view(t):
    """a numpy view of a tensor's storage"""
    np = _np()
    dtype = _storage(t)
    shape = tuple(t.shape[k] for k in range(t.ndim))
    count = int(np.prod(shape)) if shape else 1
    buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(t.data + t.byte_offset)
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


def _from_dltensor(t):
    """a numpy copy of a tensor the library owns; bfloat16 and the 8- and
    4-bit floats decoded into float32"""
    np = _np()
    raw = _view(t)
    name = _SMALL_FLOATS.get(t.dtype.code)
    if name is None:
        return raw.copy()
    raw = np.ascontiguousarray(raw)
    out = np.empty(raw.shape, dtype=np.float32)
    if api.small_float_decode(name, raw.ctypes.data, raw.size, out.ctypes.data) != 0:
        raise TypeError("cannot decode %s" % name)
    return out


def _tensor_array(tensors):
    arr = (ctypes.POINTER(DLTensor) * max(len(tensors), 1))()
    for i, t in enumerate(tensors):
        arr[i] = ctypes.pointer(t)
    return arr


class TimeResult:
    def __init__(self, mean, median, min_):
        self.mean, self.median, self.min = mean, median, min_

    def __repr__(self):
        return "mean %.6f ms, median %.6f ms, min %.6f ms" % (self.mean * 1e3, self.median * 1e3, self.min * 1e3)


class Function:
    """A compiled function: f(*arrays).  For kernels, pass every buffer
    (destination passing: the outputs are written in place) or only the
    inputs (the outputs are allocated and returned); a model takes its
    inputs and returns its outputs."""

    def __init__(self, lib, index):
        self._lib = lib
        self.index = index
        h = lib.handle
        self.name = api.lib_func_name(h, index)
        n = api.lib_num_params(h, index)
        self.n_inputs = api.lib_num_inputs(h, index)
        self.params = []
        for p in range(n):
            nd = api.lib_param_ndim(h, index, p)
            shape = tuple(api.lib_param_dim(h, index, p, d) for d in range(max(nd, 0)))
            self.params.append((api.lib_param_name(h, index, p), api.lib_param_dtype(h, index, p), shape))

    def _arrays(self, args):
        np = _np()
        if self._lib.is_model:
            want, allocated = self.n_inputs, []
            if len(args) != want:
                raise TypeError("%s: takes %d inputs, got %d" % (self.name, want, len(args)))
        else:
            want = len(self.params)
            if len(args) > want:
                raise TypeError("%s: takes %d arguments, got %d" % (self.name, want, len(args)))
            allocated = []
            for name, dtype, shape in self.params[len(args):]:
                if any(d < 0 for d in shape):
                    raise TypeError("%s: output '%s' has a symbolic shape; pass it" % (self.name, name))
                allocated.append(np.zeros(shape, dtype=dtype))
        arrays = []
        for k, a in enumerate(list(args)):
            if hasattr(a, "numpy") and not isinstance(a, np.ndarray):
                a = a.numpy()
            if not isinstance(a, np.ndarray):
                a = np.asarray(a)
            if not a.flags.c_contiguous:
                if not self._lib.is_model:  # it may be an output: a copy would lose what is written
                    raise ValueError("%s: argument %d is not C-contiguous (pass numpy.ascontiguousarray(a))"
                                     % (self.name, k + 1))
                a = np.ascontiguousarray(a)
            arrays.append(a)
        return arrays + allocated, allocated

    def __call__(self, *args):
        arrays, allocated = self._arrays(args)
        keep = []
        ts = [_dltensor(a, keep) for a in arrays]
        ctx = self._lib._ctx
        if self._lib.is_model:
            n_out = len(self.params) - self.n_inputs
            outs = (ctypes.POINTER(DLTensor) * max(n_out, 1))()
            with lock:
                rc = api.lib_run(ctx.handle, self._lib.handle, _tensor_array(ts), len(ts), outs, n_out)
                ctx.check_rc(rc, _lib.BuildError)
                res = [_from_dltensor(outs[i].contents) for i in range(n_out)]
            return res[0] if len(res) == 1 else tuple(res)
        with lock:
            rc = api.lib_call(ctx.handle, self._lib.handle, self.name, _tensor_array(ts), len(ts))
        ctx.check_rc(rc, _lib.BuildError)
        if allocated:
            return allocated[0] if len(allocated) == 1 else tuple(allocated)
        return None

    def time(self, *args, number=10, repeat=3):
        """seconds per call: mean, median and min over `repeat` runs of `number` calls"""
        arrays, _ = self._arrays(args)
        keep = []
        ts = [_dltensor(a, keep) for a in arrays]
        mean, median, mn = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        ctx = self._lib._ctx
        with lock:
            rc = api.lib_time(ctx.handle, self._lib.handle, self.name, _tensor_array(ts), len(ts), number, repeat,
                              ctypes.byref(mean), ctypes.byref(median), ctypes.byref(mn))
        ctx.check_rc(rc, _lib.BuildError)
        return TimeResult(mean.value, median.value, mn.value)

    time_evaluator = time


class Library:
    """Compiled code loaded into the process: lib["name"] or lib.name."""

    def __init__(self, path, ctx=None, cleanup=None):
        self._ctx = ctx or _lib.default_context()
        with lock:
            h = api.lib_load(self._ctx.handle, os.fspath(path))
        self.handle = self._ctx.check_ptr(h, _lib.BuildError)
        self.path = os.fspath(path)
        self.is_model = api.lib_is_model(self.handle) == 1
        self.records_applied = (0, 0)  # (kernels tuned by records, records that no longer applied)
        self._funcs = {}
        for i in range(api.lib_num_funcs(self.handle)):
            f = Function(self, i)
            self._funcs[f.name] = f
        self._finalizer = weakref.finalize(self, _release, self.handle, cleanup)

    def __getitem__(self, name):
        if self.is_model and name == "main" and "main" not in self._funcs:
            return next(iter(self._funcs.values()))
        try:
            return self._funcs[name]
        except KeyError:
            raise KeyError("the compiled module has no function named '%s' (it has: %s)"
                           % (name, ", ".join(self._funcs))) from None

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def func_names(self):
        return list(self._funcs)


def _release(handle, cleanup):
    api.lib_free(handle)
    if cleanup:
        shutil.rmtree(cleanup, ignore_errors=True)


def load_library(path):
    """a model folder (or its model.so) or a kernels .so built before"""
    return Library(path)


_TARGETS = {None: "native", "llvm": "native", "c": "native", "native": "native", "cpu": "native",
            "generic": "generic", "opencl": "opencl", "cuda": "cuda"}


def _target(target, who):
    """the library's name of a target ("llvm -mcpu=..." counts by its first word)"""
    if target is not None and not isinstance(target, str):
        raise TypeError("%s: target must be a string, got %s" % (who, type(target).__name__))
    t = target.split()[0] if target and target.split() else None
    if t not in _TARGETS:
        raise _lib.BuildError("%s: target '%s' is not supported (the targets: None, \"llvm\" or \"c\" for this "
                              "CPU, \"generic\", \"opencl\", \"cuda\")" % (who, target))
    return _TARGETS[t]


def _record_paths(records, who):
    """records as a list of paths (one path, or several merged)"""
    if records is None:
        return []
    if isinstance(records, (str, os.PathLike)):
        records = [records]
    try:
        paths = [os.fspath(r) for r in records]
    except TypeError:
        raise TypeError("%s: records must be a path or a list of paths" % who) from None
    return paths


def _c_paths(paths):
    return (ctypes.c_char_p * max(len(paths), 1))(*[p.encode() for p in paths])


def apply_records(mod, records):
    """mod's prim funcs with the best tuning record of each replayed onto it
    (records: a file or a list of files, merged); a function scheduled so
    carries the attribute "tuned".  Records measured on another target
    (CPU, instruction set, thread count) are not applied."""
    from .ir import Module
    if not isinstance(mod, Module):
        raise TypeError("mlcc.apply_records: expected an mlcc.Module, got %s" % type(mod).__name__)
    paths = _record_paths(records, "mlcc.apply_records")
    ctx = mod._ctx
    applied, failed = ctypes.c_int(0), ctypes.c_int(0)
    with lock:
        h = api.apply_records(ctx.handle, mod.handle, _c_paths(paths), len(paths), ctypes.byref(applied),
                              ctypes.byref(failed))
        out = Module(ctx, ctx.check_ptr(h))
    out.records_applied = (applied.value, failed.value)
    return out


def build(mod, target=None, out=None, pipeline=True, entry=None, records=None):
    """Compile mod and load it.  A module of prim funcs becomes kernels; one
    with graph functions goes through the graph pipeline (when pipeline is
    true) and becomes a model of its entry function (default "main").
    target: None (or "llvm", "c") for this CPU, "generic", "opencl" or
    "cuda" (docs/gpu.md).  records: tuning records (a file or a list) whose
    best schedule of each kernel is applied (docs/tuning.md).  out: where
    to keep the files (a .so path for kernels, a folder for a model); a
    temporary folder otherwise."""
    from .ir import Module
    if not isinstance(mod, Module):
        raise TypeError("mlcc.build: expected an mlcc.Module, got %s" % type(mod).__name__)
    t = _target(target, "mlcc.build")
    paths = _record_paths(records, "mlcc.build")
    ctx = mod._ctx
    tmp = None
    applied = (0, 0)
    if mod.graph_func_names():
        if pipeline:
            n_app, n_fail = ctypes.c_int(0), ctypes.c_int(0)
            with lock:
                h = api.pipeline_for(ctx.handle, mod.handle, t, _c_paths(paths), len(paths), ctypes.byref(n_app),
                                     ctypes.byref(n_fail))
                mod = Module(ctx, ctx.check_ptr(h, _lib.BuildError))
            applied = (n_app.value, n_fail.value)
        elif paths:
            mod = apply_records(mod, paths)
            applied = mod.records_applied
        if out is None:
            out = tmp = tempfile.mkdtemp(prefix="mlcc-model-")
        with lock:
            rc = api.build_model_for(ctx.handle, mod.handle, os.fspath(out), entry, t)
        if rc:
            msg = ctx.error()
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
            raise _lib.BuildError(msg)
        lib = Library(out, ctx, cleanup=tmp)
        lib.records_applied = applied
        return lib
    if paths:
        mod = apply_records(mod, paths)
        applied = mod.records_applied
    if out is None:
        tmp = tempfile.mkdtemp(prefix="mlcc-kernels-")
        out = os.path.join(tmp, "kernels.so")
    with lock:
        rc = api.build_kernels_for(ctx.handle, mod.handle, os.fspath(out), t)
    if rc:
        msg = ctx.error()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        raise _lib.BuildError(msg)
    lib = Library(out, ctx, cleanup=tmp)
    lib.records_applied = applied
    return lib


_GPU_APIS = {"opencl": 1, "cuda": 2}  # MLCRT_GPU_OPENCL, MLCRT_GPU_CUDA


def gpu_unavailable(target):
    """None when the runtime can run kernels for target ("opencl": a device
    of the first usable OpenCL platform, PoCL included; "cuda": the CUDA
    driver and NVRTC), else the runtime's reason.  Building never needs the
    device; only calling does."""
    if target not in _GPU_APIS:
        raise ValueError("mlcc.gpu_unavailable: target must be \"opencl\" or \"cuda\", got %r" % (target,))
    fn = _lib.lib.mlcrt_gpu
    fn.restype = ctypes.c_void_p
    fn.argtypes = [ctypes.c_int32]
    err = _lib.lib.mlcrt_last_error
    err.restype = ctypes.c_char_p
    err.argtypes = []
    with lock:
        if fn(_GPU_APIS[target]):
            return None
        msg = err()
    return msg.decode("utf-8", "replace") if msg else "no %s device" % target


def tune(mod, records, trials=64, batch=None, seed=0, threads=None, timeout=None, time_budget=None,
         verbose=False):
    """Tune every kernel of mod (a Module, or the path of a TVMScript .py or
    an ONNX model) on this machine, appending each measurement to the
    JSON-lines file `records` (read first when it exists: a rerun continues
    from it).  trials: candidates measured in all; batch: per round (8);
    threads: runtime threads per measurement (the runtime's default, which
    is what a build's records are chosen for); timeout: seconds per
    candidate (10); time_budget: seconds for the whole run; verbose: one
    line per round on stderr.  Returns the records' path; build and compile
    apply them with records=...  (docs/tuning.md)."""
    from .ir import Module, load
    if isinstance(mod, (str, os.PathLike)):
        path = os.fspath(mod)
        if path.endswith(".onnx"):
            from .frontend import from_onnx
            mod = from_onnx(path)
        else:
            mod = load(path)
    if not isinstance(mod, Module):
        raise TypeError("mlcc.tune: expected an mlcc.Module or a path, got %s" % type(mod).__name__)
    if not isinstance(records, (str, os.PathLike)):
        raise TypeError("mlcc.tune: records must be a path, got %s" % type(records).__name__)
    for name, v in (("trials", trials), ("batch", batch), ("seed", seed), ("threads", threads)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError("mlcc.tune: %s must be an int, got %s" % (name, type(v).__name__))
    for name, v in (("trials", trials), ("batch", batch), ("threads", threads)):
        if v is not None and v < 1:
            raise ValueError("mlcc.tune: %s must be at least 1, got %d" % (name, v))
    for name, v in (("timeout", timeout), ("time_budget", time_budget)):
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0):
            raise ValueError("mlcc.tune: %s must be a positive number of seconds, got %r" % (name, v))
    if seed is not None and seed < 0:
        raise ValueError("mlcc.tune: seed must not be negative, got %d" % seed)
    opt = _lib.TuneOptions(trials=trials or 0, batch=batch or 0, seed=seed or 0, threads=threads or 0,
                           timeout_s=float(timeout or 0), time_budget_s=float(time_budget or 0),
                           progress=1 if verbose else 0)
    ctx = mod._ctx
    path = os.fspath(records)
    with lock:
        rc = api.tune(ctx.handle, mod.handle, path, ctypes.byref(opt))
    ctx.check_rc(rc)
    return path


# ---- extern functions registered from Python ------------------------------------------

_registered = {}


def register_func(name, func=None):
    """Register a Python function as the extern `name` that call_dps_packed
    calls: func(*arrays) gets numpy views of the inputs then the outputs and
    writes the outputs in place.  Usable as a decorator."""
    if func is None:
        return lambda f: register_func(name, f)

    def trampoline(args, n, env):
        try:
            arrays = []
            for i in range(n):
                arrays.append(_view(args[i].contents))
            func(*arrays)
            return 0
        except BaseException as e:  # report, never unwind through C
            _lib.lib.mlcrt_set_error(b"%s", ("%s: %s: %s" % (name, type(e).__name__, e)).encode())
            return 1

    cb = _lib.ExternFn(trampoline)
    ctx = _lib.default_context()
    with lock:
        ctx.check_rc(api.register_extern(ctx.handle, name, cb))
    _registered[name] = (cb, func)  # the callback must outlive every call
    return func
