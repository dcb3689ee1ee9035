"""fx.py - PyTorch models through torch.fx: each node of a traced graph
becomes a graph-function binding of mlcc ops, with the module's weights as
constants, as the course maps an fx graph onto its IR.

Covered: nn.Linear, Conv2d, ReLU, BatchNorm2d (inference), MaxPool2d,
AvgPool2d, AdaptiveAvgPool2d, Flatten, Softmax, Dropout / Identity, and the
functions and methods add, sub, mul, matmul, relu, flatten, reshape / view,
softmax.  Anything else is refused with the node's name and target."""
import operator

from . import _lib
from . import graph as g
from .block_builder import BlockBuilder


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(x) for x in v]


def _shape_of(x):
    return [int(d) for d in x.struct_info.shape]


def _flatten(x, start=1, end=-1):
    shape = _shape_of(x)
    end = end % len(shape)
    n = 1
    for d in shape[start:end + 1]:
        n *= d
    return g.op.reshape(x, shape[:start] + [n] + shape[end + 1:])


def _reshape(x, dims):
    shape = _shape_of(x)
    dims = [int(d) for d in (dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims)]
    if -1 in dims:
        total = 1
        for d in shape:
            total *= d
        known = 1
        for d in dims:
            if d != -1:
                known *= d
        dims[dims.index(-1)] = total // known
    return g.op.reshape(x, dims)


def _const(t):
    return g.const(t.detach().cpu().numpy())


def _linear(m, x):
    y = g.op.matmul(x, _const(m.weight.t().contiguous()))
    return g.op.add(y, _const(m.bias)) if m.bias is not None else y


def _conv2d(m, x):
    if not isinstance(m.padding, tuple) and isinstance(m.padding, str):
        raise _lib.Error("from_fx: Conv2d with padding='%s' is not supported" % m.padding)
    y = g.op.nn.conv2d(x, _const(m.weight), strides=_pair(m.stride), padding=_pair(m.padding),
                       dilation=_pair(m.dilation), groups=int(m.groups))
    if m.bias is None:
        return y
    return g.op.add(y, g.const(m.bias.detach().cpu().numpy().reshape(1, -1, 1, 1)))


def _batch_norm(m, x):
    import torch
    if m.training:
        raise _lib.Error("from_fx: BatchNorm2d in training mode (call model.eval() first)")
    c = m.num_features
    ones, zeros = torch.ones(c), torch.zeros(c)
    gamma = m.weight if m.weight is not None else ones
    beta = m.bias if m.bias is not None else zeros
    bn = g.op.nn.batch_norm(x, _const(gamma), _const(beta), _const(m.running_mean), _const(m.running_var),
                            axis=1, epsilon=float(m.eps))
    return g.get_item(bn, 0)


def _pool(kind):
    def conv(m, x):
        stride = m.stride if m.stride is not None else m.kernel_size
        kw = dict(pool_size=_pair(m.kernel_size), strides=_pair(stride), padding=_pair(m.padding),
                  ceil_mode=bool(m.ceil_mode))
        if kind == "max":
            kw["dilation"] = _pair(m.dilation)
            return g.op.nn.max_pool2d(x, **kw)
        kw["count_include_pad"] = bool(m.count_include_pad)
        return g.op.nn.avg_pool2d(x, **kw)
    return conv


def _adaptive_avg(m, x):
    return g.op.nn.adaptive_avg_pool2d(x, output_size=_pair(m.output_size))


def _module_table():
    import torch.nn as nn
    return {
        nn.Linear: _linear,
        nn.Conv2d: _conv2d,
        nn.ReLU: lambda m, x: g.op.nn.relu(x),
        nn.BatchNorm2d: _batch_norm,
        nn.MaxPool2d: _pool("max"),
        nn.AvgPool2d: _pool("avg"),
        nn.AdaptiveAvgPool2d: _adaptive_avg,
        nn.Flatten: lambda m, x: _flatten(x, m.start_dim, m.end_dim),
        nn.Softmax: lambda m, x: g.op.nn.softmax(x, axis=int(m.dim if m.dim is not None else -1)),
        nn.Dropout: lambda m, x: x,
        nn.Identity: lambda m, x: x,
    }


def _binary(opname):
    def conv(a, b):
        a, b = _value(a, b), _value(b, a)
        return getattr(g.op, opname)(a, b)
    return conv


def _value(v, other):
    """a Python number next to a tensor becomes a constant of its dtype"""
    if isinstance(v, g.Expr):
        return v
    import numpy as np
    dtype = other.struct_info.dtype if isinstance(other, g.Expr) else "float32"
    return g.const(np.array(v, dtype=dtype))


def _softmax(x, dim=-1, **_):
    return g.op.nn.softmax(x, axis=int(dim))


def _function_table():
    import torch
    import torch.nn.functional as F
    return {
        operator.add: _binary("add"), torch.add: _binary("add"),
        operator.sub: _binary("subtract"), torch.sub: _binary("subtract"),
        operator.mul: _binary("multiply"), torch.mul: _binary("multiply"),
        operator.matmul: lambda a, b: g.op.matmul(a, b), torch.matmul: lambda a, b: g.op.matmul(a, b),
        torch.relu: lambda x: g.op.nn.relu(x), F.relu: lambda x, inplace=False: g.op.nn.relu(x),
        torch.flatten: lambda x, start_dim=0, end_dim=-1: _flatten(x, start_dim, end_dim),
        torch.reshape: lambda x, shape: _reshape(x, [shape]),
        F.softmax: _softmax, torch.softmax: _softmax,
    }


_METHODS = {
    "relu": lambda x: g.op.nn.relu(x),
    "flatten": lambda x, start_dim=0, end_dim=-1: _flatten(x, start_dim, end_dim),
    "view": lambda x, *dims: _reshape(x, dims),
    "reshape": lambda x, *dims: _reshape(x, dims),
    "softmax": _softmax,
    "add": _binary("add"),
    "mul": _binary("multiply"),
    "matmul": lambda a, b: g.op.matmul(a, b),
}


def from_fx(gm, input_shapes, dtype="float32", func_name="main"):
    """A torch.fx.GraphModule (torch.fx.symbolic_trace(model)) as a Module
    with graph function func_name; input_shapes gives each placeholder's
    shape in order."""
    import torch.fx
    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError("from_fx: expected a torch.fx.GraphModule (torch.fx.symbolic_trace(model)), got %s"
                        % type(gm).__name__)
    modules = dict(gm.named_modules())
    mtable, ftable = _module_table(), _function_table()
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    if len(placeholders) != len(input_shapes):
        raise _lib.Error("from_fx: the graph has %d inputs, %d shapes given" % (len(placeholders), len(input_shapes)))
    params = [g.Var(n.name, g.TensorStructInfo(tuple(s), dtype)) for n, s in zip(placeholders, input_shapes)]
    env = dict(zip(placeholders, params))

    def arg(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(arg(x) for x in a)
        return a

    bb = BlockBuilder()
    with bb.function(func_name, params):
        with bb.dataflow():
            out = None
            for n in nodes:
                if n.op == "placeholder":
                    continue
                where = "node '%s' (%s %s)" % (n.name, n.op, getattr(n.target, "__name__", n.target))
                args = [arg(a) for a in n.args]
                kwargs = {k: arg(v) for k, v in n.kwargs.items()}
                if n.op == "output":
                    out = args[0]
                    break
                if n.op == "call_module":
                    m = modules[n.target]
                    conv = mtable.get(type(m))
                    if conv is None:
                        raise _lib.Error("from_fx: unsupported %s: module type %s" % (where, type(m).__name__))
                    value = conv(m, *args)
                elif n.op == "call_function":
                    conv = ftable.get(n.target)
                    if conv is None:
                        raise _lib.Error("from_fx: unsupported %s" % where)
                    value = conv(*args, **kwargs)
                elif n.op == "call_method":
                    conv = _METHODS.get(n.target)
                    if conv is None:
                        raise _lib.Error("from_fx: unsupported %s" % where)
                    value = conv(*args, **kwargs)
                elif n.op == "get_attr":
                    t = gm
                    for part in n.target.split("."):
                        t = getattr(t, part)
                    value = _const(t)
                else:
                    raise _lib.Error("from_fx: unsupported %s" % where)
                env[n] = value if value.kind in (g.G_VAR, g.G_DFVAR) else bb.emit(value, n.name)
            if out is None:
                raise _lib.Error("from_fx: the graph has no output")
            res = bb.emit_output(g.tuple_(list(out)) if isinstance(out, (list, tuple)) else out)
        bb.emit_func_output(res)
    return bb.get()
