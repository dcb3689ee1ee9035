"""frontend.py - models in: ONNX files (and ONNX models in memory), and
PyTorch modules through the ONNX exporter PyTorch ships (from_torch) or
through torch.fx (from_fx, in fx.py); mlcc.compile turns a model into a
deployable folder."""
import ctypes
import os
import tempfile

from . import _lib
from ._lib import api, lock
from .ir import Module


def from_onnx(model, shape_dict=None):
    """An ONNX model (a path, bytes, or an object with SerializeToString)
    as a Module with graph function "main"; shape_dict {input: shape}
    overrides input shapes (e.g. to fix a batch size)."""
    if isinstance(model, (str, os.PathLike)):
        return _import(os.fspath(model), shape_dict)
    data = model.SerializeToString() if hasattr(model, "SerializeToString") else model
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("from_onnx: expected a path, bytes or an ONNX ModelProto, got %s" % type(model).__name__)
    with tempfile.TemporaryDirectory(prefix="mlcc-onnx-") as d:
        path = os.path.join(d, "model.onnx")
        with open(path, "wb") as f:
            f.write(data)
        return _import(path, shape_dict)


def _import(path, shape_dict):
    ctx = _lib.default_context()
    shape_dict = shape_dict or {}
    names = (ctypes.c_char_p * max(len(shape_dict), 1))(*[k.encode() for k in shape_dict])
    ndims = (ctypes.c_int * max(len(shape_dict), 1))(*[len(v) for v in shape_dict.values()])
    flat = [int(d) for v in shape_dict.values() for d in v]
    dims = (ctypes.c_int64 * max(len(flat), 1))(*flat)
    with lock:
        h = api.onnx_import(ctx.handle, path, names, ndims, dims, len(shape_dict))
        return Module(ctx, ctx.check_ptr(h))


def from_torch(module, example_inputs, input_names=None):
    """A torch.nn.Module as a Module, through torch.onnx.export; the graph
    function's params are the inputs (named input0, input1, ... unless
    input_names says), shaped like example_inputs."""
    import torch
    if not isinstance(example_inputs, (list, tuple)):
        example_inputs = (example_inputs,)
    names = list(input_names or ["input%d" % i for i in range(len(example_inputs))])
    with tempfile.TemporaryDirectory(prefix="mlcc-torch-") as d:
        path = os.path.join(d, "model.onnx")
        module.eval()
        with torch.no_grad():
            torch.onnx.export(module, tuple(example_inputs), path, input_names=names, opset_version=13)
        shapes = {n: tuple(t.shape) for n, t in zip(names, example_inputs)}
        return _import(path, shapes)


def compile(model, out, shape_dict=None, records=None, target=None):  # noqa: A001 - mlcc compile's name
    """an ONNX model (path) or a Module compiled into folder `out` (model.so,
    model.h, params.bin) and loaded; records: tuning records applied to its
    kernels (mlcc.tune); target as for mlcc.build"""
    from .runtime import build
    mod = model if isinstance(model, Module) else from_onnx(model, shape_dict)
    return build(mod, target=target, out=out, records=records)
