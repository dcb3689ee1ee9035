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


def _from_dltensor(t):
    """a numpy copy of a tensor the library owns"""
    np = _np()
    kind = {0: "i", 1: "u", 2: "f", 6: "b"}[t.dtype.code]
    dtype = np.dtype(np.bool_) if kind == "b" else np.dtype("%s%d" % (kind, t.dtype.bits // 8))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    n = int(np.prod(shape)) if shape else 1
    buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(t.data + t.byte_offset)
    return np.frombuffer(buf, dtype=dtype).reshape(shape).copy()


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


_TARGETS = (None, "llvm", "c", "native", "cpu")


def build(mod, target=None, out=None, pipeline=True, entry=None):
    """Compile mod and load it.  A module of prim funcs becomes kernels; one
    with graph functions goes through the graph pipeline (when pipeline is
    true) and becomes a model of its entry function (default "main").  out:
    where to keep the files (a .so path for kernels, a folder for a model);
    a temporary folder otherwise."""
    from .ir import Module
    if not isinstance(mod, Module):
        raise TypeError("mlcc.build: expected an mlcc.Module, got %s" % type(mod).__name__)
    t = target.split()[0] if isinstance(target, str) else target
    if t not in _TARGETS:
        raise _lib.BuildError("mlcc.build: target '%s' is not supported here (the C target for this CPU: "
                              "None, \"llvm\", \"c\")" % target)
    ctx = mod._ctx
    tmp = None
    if mod.graph_func_names():
        if pipeline:
            with lock:
                h = api.pipeline(ctx.handle, mod.handle, None, None)
            from .ir import Module as M
            mod = M(ctx, ctx.check_ptr(h, _lib.BuildError))
        if out is None:
            out = tmp = tempfile.mkdtemp(prefix="mlcc-model-")
        with lock:
            rc = api.build_model(ctx.handle, mod.handle, os.fspath(out), entry)
        if rc:
            msg = ctx.error()
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
            raise _lib.BuildError(msg)
        return Library(out, ctx, cleanup=tmp)
    if out is None:
        tmp = tempfile.mkdtemp(prefix="mlcc-kernels-")
        out = os.path.join(tmp, "kernels.so")
    with lock:
        rc = api.build_kernels(ctx.handle, mod.handle, os.fspath(out))
    if rc:
        msg = ctx.error()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        raise _lib.BuildError(msg)
    return Library(out, ctx, cleanup=tmp)


# ---- extern functions registered from Python ------------------------------------------

_registered = {}


def register_func(name, func=None):
    """Register a Python function as the extern `name` that call_dps_packed
    calls: func(*arrays) gets numpy views of the inputs then the outputs and
    writes the outputs in place.  Usable as a decorator."""
    if func is None:
        return lambda f: register_func(name, f)
    np = _np()

    def trampoline(args, n, env):
        try:
            arrays = []
            for i in range(n):
                t = args[i].contents
                kind = {0: "i", 1: "u", 2: "f", 6: "b"}[t.dtype.code]
                dtype = np.dtype(np.bool_) if kind == "b" else np.dtype("%s%d" % (kind, t.dtype.bits // 8))
                shape = tuple(t.shape[k] for k in range(t.ndim))
                count = int(np.prod(shape)) if shape else 1
                buf = (ctypes.c_char * (count * dtype.itemsize)).from_address(t.data + t.byte_offset)
                arrays.append(np.frombuffer(buf, dtype=dtype).reshape(shape))
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
