"""graph.py - graph values from Python: struct info, values (vars, calls,
tuples, constants), op constructors generated from the library's op
registry (mlcc.op.add, mlcc.op.nn.relu, ...), call_tir / call_dps_packed.
block_builder.py assembles them into functions."""
import ctypes
import numbers

from . import _lib
from ._lib import api, lock, ptr_array
from ._values import _Keep, to_value
from . import te as _te

# MlccGKind
(G_VAR, G_DFVAR, G_CONST, G_TUPLE, G_GET_ITEM, G_CALL, G_SHAPE, G_PRIM, G_STR, G_DTYPE, G_OP, G_GLOBAL,
 G_EXTERN, G_IF, G_SEQ) = range(15)


def _ctx():
    return _lib.default_context()


class StructInfo:
    """What a graph value is: a tensor of a shape and dtype, a tuple, ..."""

    def __init__(self, ctx, handle):
        self._ctx = ctx
        self.handle = handle

    @property
    def kind(self):
        return ("object", "tensor", "tuple", "shape", "prim")[api.sinfo_kind(self.handle)]

    @property
    def ndim(self):
        return api.sinfo_ndim(self.handle)

    @property
    def shape(self):
        dims = []
        for i in range(max(self.ndim, 0)):
            h = api.sinfo_dim(self.handle, i)
            if not h:
                return None
            e = _te.Expr(self._ctx, h)
            dims.append(e.value() if e.value() is not None else e)
        return tuple(dims)

    @property
    def dtype(self):
        with lock:
            return api.sinfo_dtype(self._ctx.handle, self.handle)

    @property
    def fields(self):
        return [StructInfo(self._ctx, api.sinfo_field(self.handle, i))
                for i in range(api.sinfo_num_fields(self.handle))]

    def __repr__(self):
        return api.sinfo_print(self.handle)


def TensorStructInfo(shape, dtype="float32"):
    """R.Tensor(shape, dtype); dims are ints or te.var("n") for symbolic sizes"""
    ctx = _ctx()
    dims = [d if isinstance(d, _te.Expr) else _te.const(int(d)) for d in shape]
    with lock:
        h = api.sinfo_tensor(ctx.handle, ptr_array([d.handle for d in dims]), len(dims), dtype)
        return StructInfo(ctx, ctx.check_ptr(h))


def TupleStructInfo(fields):
    ctx = _ctx()
    with lock:
        h = api.sinfo_tuple(ctx.handle, ptr_array([f.handle for f in fields]), len(fields))
        return StructInfo(ctx, ctx.check_ptr(h))


def _sinfo(s):
    if isinstance(s, StructInfo):
        return s
    if isinstance(s, (list, tuple)) and len(s) == 2 and isinstance(s[1], str):
        return TensorStructInfo(s[0], s[1])
    if isinstance(s, (list, tuple)):
        return TupleStructInfo([_sinfo(x) for x in s])
    raise TypeError("expected struct info (mlcc.TensorStructInfo(shape, dtype)), got %s" % type(s).__name__)


class Op:
    """An op by name: Op.get("add") == Op.get("relax.add")"""

    def __init__(self, name):
        self.name = name[len("relax."):] if name.startswith("relax.") else name

    @staticmethod
    def get(name):
        return Op(name)

    def __eq__(self, other):
        return isinstance(other, Op) and other.name == self.name

    def __hash__(self):
        return hash(("op", self.name))

    def __repr__(self):
        return "Op(%s)" % self.name


class GlobalVar:
    """A module function by name (the callee of call_tir and of calls)."""

    def __init__(self, name):
        self.name_hint = name

    def __eq__(self, other):
        return isinstance(other, GlobalVar) and other.name_hint == self.name_hint

    def __hash__(self):
        return hash(("gv", self.name_hint))

    def __repr__(self):
        return "GlobalVar(%s)" % self.name_hint


class ExternFunc(GlobalVar):
    def __repr__(self):
        return "ExternFunc(%s)" % self.name_hint


class Expr:
    """A graph value.  Values are compared by identity (the node they are)."""

    def __init__(self, ctx, handle):
        self._ctx = ctx
        self.handle = handle

    @staticmethod
    def wrap(ctx, handle):
        k = api.g_kind(handle)
        cls = _CLASSES.get(k, Expr)
        obj = cls.__new__(cls)
        Expr.__init__(obj, ctx, handle)
        return obj

    @property
    def kind(self):
        return api.g_kind(self.handle)

    @property
    def struct_info(self):
        h = api.g_sinfo(self.handle)
        return StructInfo(self._ctx, h) if h else None

    def __eq__(self, other):
        return isinstance(other, Expr) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def __repr__(self):
        return api.g_print(self.handle)

    def _args(self):
        return [Expr.wrap(self._ctx, api.g_arg(self.handle, i)) for i in range(api.g_num_args(self.handle))]


class Var(Expr):
    """A graph var; Var(name, struct_info) makes a function param."""

    def __init__(self, name, struct_info):
        ctx = _ctx()
        s = _sinfo(struct_info)
        with lock:
            h = api.g_var(ctx.handle, name, s.handle)
        Expr.__init__(self, ctx, ctx.check_ptr(h))

    @property
    def name_hint(self):
        return api.g_name(self.handle)


class DataflowVar(Var):
    pass


class Constant(Expr):
    def numpy(self):
        raise NotImplementedError("reading constants back is not offered")


class Tuple(Expr):
    @property
    def fields(self):
        return self._args()


class TupleGetItem(Expr):
    @property
    def tuple_value(self):
        return self._args()[0]

    @property
    def index(self):
        return api.g_get_item_index(self.handle)


class Call(Expr):
    @property
    def op(self):
        k = api.g_callee_kind(self.handle)
        name = api.g_name(self.handle)
        if k == G_OP:
            return Op(name)
        if k == G_EXTERN:
            return ExternFunc(name)
        return GlobalVar(name)

    @property
    def args(self):
        return self._args()


_CLASSES = {G_VAR: Var, G_DFVAR: DataflowVar, G_CONST: Constant, G_TUPLE: Tuple, G_GET_ITEM: TupleGetItem,
            G_CALL: Call}


def const(value, dtype=None):
    """a tensor constant from a numpy array (or anything numpy.asarray takes)"""
    import numpy as np
    arr = np.ascontiguousarray(np.asarray(value, dtype=dtype))
    ctx = _ctx()
    shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
    with lock:
        h = api.g_const(ctx.handle, str(arr.dtype) if arr.dtype != np.bool_ else "bool", shape, arr.ndim,
                        arr.ctypes.data_as(ctypes.c_void_p), arr.nbytes)
        return Expr.wrap(ctx, ctx.check_ptr(h))


def _gexpr(v):
    if isinstance(v, Expr):
        return v
    if isinstance(v, (list, tuple)):
        return tuple_(v)
    try:
        import numpy as np
        if isinstance(v, (np.ndarray, numbers.Number)):
            return const(v)
    except ImportError:
        pass
    raise TypeError("expected a graph value (mlcc.Var, a call, a tuple), got %s" % type(v).__name__)


def tuple_(fields):
    ctx = _ctx()
    fs = [_gexpr(f) for f in fields]
    with lock:
        h = api.g_tuple(ctx.handle, ptr_array([f.handle for f in fs]), len(fs))
        return Expr.wrap(ctx, ctx.check_ptr(h))


def get_item(t, index):
    ctx = _ctx()
    with lock:
        return Expr.wrap(ctx, ctx.check_ptr(api.g_get_item(ctx.handle, _gexpr(t).handle, int(index))))


def _name(f):
    if isinstance(f, GlobalVar):
        return f.name_hint
    if isinstance(f, str):
        return f
    raise TypeError("expected a function name or GlobalVar, got %s" % type(f).__name__)


def call_tir(func, args, out_sinfo):
    """R.call_tir(cls.func, (args...), out_sinfo=...)"""
    ctx = _ctx()
    a = [_gexpr(x) for x in (args if isinstance(args, (list, tuple)) else [args])]
    s = _sinfo(out_sinfo)
    with lock:
        h = api.g_call_tir(ctx.handle, _name(func), ptr_array([x.handle for x in a]), len(a), s.handle)
        return Expr.wrap(ctx, ctx.check_ptr(h))


def call_dps_packed(func, args, out_sinfo):
    """R.call_dps_packed("env.linear", (args...), out_sinfo=...)"""
    ctx = _ctx()
    a = [_gexpr(x) for x in (args if isinstance(args, (list, tuple)) else [args])]
    s = _sinfo(out_sinfo)
    with lock:
        h = api.g_call_dps_packed(ctx.handle, _name(func), ptr_array([x.handle for x in a]), len(a), s.handle)
        return Expr.wrap(ctx, ctx.check_ptr(h))


def call(func, args, ret_sinfo):
    """a call of the module's graph function func"""
    ctx = _ctx()
    a = [_gexpr(x) for x in args]
    s = _sinfo(ret_sinfo)
    with lock:
        h = api.g_call_global(ctx.handle, _name(func), ptr_array([x.handle for x in a]), len(a), s.handle)
        return Expr.wrap(ctx, ctx.check_ptr(h))


def call_op(op, args, attrs=None):
    """an op call by name with keyword attributes; struct info inferred"""
    ctx = _ctx()
    a = [_gexpr(x) for x in args]
    attrs = attrs or {}
    keep = _Keep()
    keys = (ctypes.c_char_p * max(len(attrs), 1))(*[k.encode() for k in attrs])
    vals = (_lib.Value * max(len(attrs), 1))()
    for i, v in enumerate(attrs.values()):
        vals[i] = to_value(v, keep)
    with lock:
        h = api.g_call_op(ctx.handle, op, ptr_array([x.handle for x in a]), len(a), keys, vals, len(attrs))
        return Expr.wrap(ctx, ctx.check_ptr(h))


def with_args(c, args):
    """call c with its arguments replaced"""
    ctx = c._ctx
    a = [_gexpr(x) for x in args]
    with lock:
        h = api.g_call_with_args(ctx.handle, c.handle, ptr_array([x.handle for x in a]), len(a))
        return Expr.wrap(ctx, ctx.check_ptr(h))


# ---- op constructors from the registry ----------------------------------------------

class _Namespace:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "<mlcc ops %s>" % self._name


def _make_op(name, signature):
    params = []  # (kind, name, optional)
    for p in signature.split():
        kind, pname = p.split(":", 1)
        params.append((kind, pname.rstrip("?"), pname.endswith("?")))

    def ctor(*args, **kwargs):
        tensors, attrs = [], {}
        pos = list(args)
        for kind, pname, optional in params:
            if pos:
                v = pos.pop(0)
            elif pname in kwargs:
                v = kwargs.pop(pname)
            else:
                if not optional:
                    raise TypeError("%s: missing argument '%s'" % (name, pname))
                continue
            if kind == "A":
                attrs[pname] = list(v) if isinstance(v, tuple) else v
            else:
                tensors.append(v)
        if pos:
            raise TypeError("%s: takes %d arguments, got %d" % (name, len(params), len(args)))
        if kwargs:
            raise TypeError("%s: unexpected keyword argument '%s' (parameters: %s)"
                            % (name, next(iter(kwargs)), ", ".join(p[1] for p in params)))
        return call_op(name, tensors, attrs)

    ctor.__name__ = name.split(".")[-1]
    ctor.__doc__ = "R.%s(%s)" % (name, signature)
    return ctor


def _make_op_namespace():
    root = _Namespace("op")
    for i in range(api.op_count()):
        name = api.op_name(i)
        parts = name.split(".")
        ns = root
        for p in parts[:-1]:
            if not hasattr(ns, p):
                setattr(ns, p, _Namespace(p))
            ns = getattr(ns, p)
        setattr(ns, parts[-1], _make_op(name, api.op_signature(i)))
    root.get = Op.get
    return root


op = _make_op_namespace()
