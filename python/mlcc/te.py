"""te.py - tensor expressions: te.placeholder, te.compute, te.reduce_axis,
te.sum / max / min and te.create_prim_func, built by the library's TE layer
(so the prim func is the one mlcc's own op legalization would make).

Expressions are TIR scalars with Python operators; a number meets an
expression in the expression's dtype (A[i, j] * 2 stays float32)."""
import inspect
import numbers

from . import _lib
from ._lib import api, lock, ptr_array
from .ir import Module


def _ctx():
    return _lib.default_context()


class Expr:
    """A TIR scalar expression."""

    def __init__(self, ctx, handle):
        self._ctx = ctx
        self.handle = handle

    @property
    def dtype(self):
        with lock:
            return api.expr_dtype(self._ctx.handle, self.handle)

    def __repr__(self):
        with lock:
            return api.expr_print(self.handle)

    def _bin(self, op, other, swap=False):
        o = const(other) if isinstance(other, numbers.Number) else other
        if not isinstance(o, Expr):
            return NotImplemented
        a, b = (o, self) if swap else (self, o)
        with lock:
            h = api.expr_binary(self._ctx.handle, op, a.handle, b.handle)
            return Expr(self._ctx, self._ctx.check_ptr(h))

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __truediv__(self, o): return self._bin("/", o)
    def __rtruediv__(self, o): return self._bin("/", o, True)
    def __floordiv__(self, o): return self._bin("//", o)
    def __rfloordiv__(self, o): return self._bin("//", o, True)
    def __mod__(self, o): return self._bin("%", o)
    def __rmod__(self, o): return self._bin("%", o, True)
    def __lt__(self, o): return self._bin("<", o)
    def __le__(self, o): return self._bin("<=", o)
    def __gt__(self, o): return self._bin(">", o)
    def __ge__(self, o): return self._bin(">=", o)

    def __neg__(self):
        with lock:
            return Expr(self._ctx, self._ctx.check_ptr(api.expr_neg(self._ctx.handle, self.handle)))

    def astype(self, dtype):
        with lock:
            return Expr(self._ctx, self._ctx.check_ptr(api.expr_cast(self._ctx.handle, dtype, self.handle)))

    def __bool__(self):
        raise TypeError("a tensor expression has no truth value (use te.if_then_else)")

    def value(self):
        """the integer when this is an integer constant, else None"""
        import ctypes
        out = ctypes.c_int64()
        return out.value if api.expr_int_value(self.handle, ctypes.byref(out)) else None


def const(v, dtype=None):
    """a constant: int64 for ints, float32 for floats unless dtype says"""
    ctx = _ctx()
    with lock:
        if isinstance(v, bool):
            h = api.expr_int(ctx.handle, int(v), dtype or "bool")
        elif isinstance(v, numbers.Integral):
            h = api.expr_int(ctx.handle, int(v), dtype or "int64")
        elif isinstance(v, numbers.Real):
            h = api.expr_float(ctx.handle, float(v), dtype or "float32")
        else:
            raise TypeError("te.const: a number, got %s" % type(v).__name__)
        return Expr(ctx, ctx.check_ptr(h))


def var(name, dtype="int64"):
    ctx = _ctx()
    with lock:
        return Expr(ctx, ctx.check_ptr(api.expr_var(ctx.handle, name, dtype)))


def _expr(v):
    if isinstance(v, Expr):
        return v
    if isinstance(v, numbers.Number):
        return const(v)
    raise TypeError("expected a tensor expression or a number, got %s" % type(v).__name__)


def _call(name, *args):
    ctx = _ctx()
    es = [_expr(a) for a in args]
    with lock:
        h = api.expr_call(ctx.handle, name, ptr_array([e.handle for e in es]), len(es))
        return Expr(ctx, ctx.check_ptr(h))


def exp(x): return _call("exp", x)
def log(x): return _call("log", x)
def sqrt(x): return _call("sqrt", x)
def tanh(x): return _call("tanh", x)
def sigmoid(x): return _call("sigmoid", x)
def erf(x): return _call("erf", x)
def fabs(x): return _call("fabs", x)


def if_then_else(cond, t, f):
    ctx = _ctx()
    t, f = _expr(t), _expr(f)
    with lock:
        h = api.expr_select(ctx.handle, _expr(cond).handle, t.handle, f.handle)
        return Expr(ctx, ctx.check_ptr(h))


def _shape(shape):
    if isinstance(shape, (numbers.Integral, Expr)):
        shape = (shape,)
    return [s if isinstance(s, Expr) else const(int(s)) for s in shape]


class Tensor:
    """A placeholder or a compute; t[i, j] reads it."""

    def __init__(self, ctx, handle):
        self._ctx = ctx
        self.handle = handle

    @property
    def name(self):
        return api.te_name(self.handle)

    @property
    def dtype(self):
        with lock:
            return api.te_dtype(self._ctx.handle, self.handle)

    @property
    def ndim(self):
        return api.te_ndim(self.handle)

    @property
    def shape(self):
        dims = [Expr(self._ctx, api.te_dim(self.handle, i)) for i in range(self.ndim)]
        return tuple(d.value() if d.value() is not None else d for d in dims)

    def __getitem__(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        es = [_expr(i) for i in idx]
        with lock:
            h = api.te_read(self._ctx.handle, self.handle, ptr_array([e.handle for e in es]), len(es))
            return Expr(self._ctx, self._ctx.check_ptr(h))

    def __repr__(self):
        return "te.Tensor(%s, %s, %s)" % (self.name, self.shape, self.dtype)


def placeholder(shape, dtype="float32", name="placeholder"):
    ctx = _ctx()
    sh = _shape(shape)
    with lock:
        h = api.te_placeholder(ctx.handle, name, ptr_array([s.handle for s in sh]), len(sh), dtype)
        return Tensor(ctx, ctx.check_ptr(h))


class IterVar(Expr):
    """a reduce axis: its var and extent"""

    def __init__(self, ctx, handle, extent):
        super().__init__(ctx, handle)
        self.extent = extent


def reduce_axis(dom, name="k"):
    """dom: an extent n or a range (0, n)"""
    if isinstance(dom, (tuple, list)):
        if len(dom) != 2 or not (isinstance(dom[0], numbers.Integral) and dom[0] == 0):
            raise ValueError("te.reduce_axis: the range must start at 0, got %r" % (dom,))
        dom = dom[1]
    ctx = _ctx()
    with lock:
        h = ctx.check_ptr(api.te_var(ctx.handle, name))
    return IterVar(ctx, h, _shape([dom])[0])


class _Reduce:
    def __init__(self, op, body, axes):
        self.op = op
        self.body = _expr(body)
        self.axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
        for a in self.axes:
            if not isinstance(a, IterVar):
                raise TypeError("te.%s: axis must be made by te.reduce_axis" % op)


def sum(expr, axis):  # noqa: A001 - the field's spelling
    return _Reduce("sum", expr, axis)


def _minmax(op, a, b, axis):
    if axis is not None:
        return _Reduce(op, a, axis)
    if b is None:
        raise TypeError("te.%s: give an axis (reduction) or two operands" % op)
    return _expr(a)._bin(op, b) if isinstance(a, Expr) else _expr(b)._bin(op, a, swap=True)


def max(a, b=None, axis=None):  # noqa: A001
    return _minmax("max", a, b, axis)


def min(a, b=None, axis=None):  # noqa: A001
    return _minmax("min", a, b, axis)


def compute(shape, fcompute, name="compute"):
    """out[i, j, ...] = fcompute(i, j, ...); the index vars take the names of
    fcompute's parameters"""
    ctx = _ctx()
    sh = _shape(shape)
    try:
        pnames = list(inspect.signature(fcompute).parameters)
    except (TypeError, ValueError):
        pnames = []
    if len(pnames) != len(sh):
        pnames = ["i%d" % k for k in range(len(sh))]
    with lock:
        axes = [Expr(ctx, ctx.check_ptr(api.te_var(ctx.handle, n))) for n in pnames]
    body = fcompute(*axes)
    shp = ptr_array([s.handle for s in sh])
    axp = ptr_array([a.handle for a in axes])
    with lock:
        if isinstance(body, _Reduce):
            ra = ptr_array([a.handle for a in body.axes])
            re_ = ptr_array([a.extent.handle for a in body.axes])
            h = api.te_reduce(ctx.handle, name, shp, len(sh), axp, body.op, body.body.handle, ra, re_,
                              len(body.axes))
        else:
            h = api.te_compute(ctx.handle, name, shp, len(sh), axp, _expr(body).handle)
        return Tensor(ctx, ctx.check_ptr(h))


class PrimFunc:
    """A prim func made from tensors; IRModule({"name": f}) names it."""

    def __init__(self, tensors, name="main"):
        self.tensors = list(tensors)
        self.name = name
        self.mod = _create(self.tensors, name)

    def with_name(self, name):
        return PrimFunc(self.tensors, name)

    def with_attr(self, key, value=None):
        """the course's f.with_attr({"global_symbol": "mm_relu"}): the name is
        the one attribute a TE prim func takes from outside"""
        attrs = key if isinstance(key, dict) else {key: value}
        f = self
        for k, v in attrs.items():
            if k != "global_symbol":
                raise _lib.Error("with_attr: only global_symbol can be set on a te prim func, not '%s'" % k)
            f = f.with_name(v)
        return f

    def script(self):
        return self.mod.script()

    def __str__(self):
        return self.script()


def _create(tensors, name):
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError("create_prim_func: expected te tensors, got %s" % type(t).__name__)
    ctx = _ctx()
    with lock:
        h = api.te_create_prim_func(ctx.handle, name, ptr_array([t.handle for t in tensors]), len(tensors))
        return Module(ctx, ctx.check_ptr(h))


def create_prim_func(tensors, name="main"):
    """the prim func over tensors (inputs first, outputs last)"""
    return PrimFunc(tensors, name)
