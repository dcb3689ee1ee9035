"""graph.py - graph functions from Python: struct info, values (vars, calls,
tuples, constants), op constructors generated from the library's op
registry (mlcc.op.add, mlcc.op.nn.relu, ...), call_tir / call_dps_packed,
and the BlockBuilder that assembles functions into a module."""
import contextlib
import ctypes
import numbers

from . import _lib
from ._lib import api, lock, ptr_array
from ._values import _Keep, to_value
from .ir import Module
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


# ---- the block builder ---------------------------------------------------------------

class BlockBuilder:
    """Builds graph functions into a module:

        bb = mlcc.BlockBuilder()
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit_te(my_te_func, x)
                gv = bb.emit_output(lv)
            bb.emit_func_output(gv)
        mod = bb.get()
    """

    def __init__(self, mod=None):
        self._ctx = _ctx()
        self._mod = mod
        self._fb = None
        self._fname = None
        self._params = None
        self._result = None
        self._in_df = False
        self._counter = 0
        self._bindings = {}  # var handle -> value

    # -- the module
    def get(self):
        if self._mod is None:
            raise _lib.Error("the builder holds no function yet")
        return self._mod

    def _add(self, m):
        self._mod = m if self._mod is None else self._mod.update(m)

    def _unique(self, base):
        names = set(self._mod.func_names()) if self._mod is not None else set()
        if base not in names:
            return base
        k = 1
        while "%s%d" % (base, k) in names:
            k += 1
        return "%s%d" % (base, k)

    def add_func(self, func, name):
        """put a function (a Module holding it, or a te.PrimFunc) in; returns its GlobalVar"""
        name = self._unique(name)
        if isinstance(func, _te.PrimFunc):
            m = func.with_name(name).mod
        elif isinstance(func, Module):
            fnames = func.func_names()
            if len(fnames) != 1:
                raise _lib.Error("add_func: a module of one function, got %d" % len(fnames))
            if fnames[0] != name:
                raise _lib.Error("add_func: the function is called '%s', not '%s'" % (fnames[0], name))
            m = func
        else:
            raise TypeError("add_func: expected a Module or a te.PrimFunc, got %s" % type(func).__name__)
        self._add(m)
        return GlobalVar(name)

    def update_func(self, gv, func):
        name = _name(gv)
        if not isinstance(func, Module):
            raise TypeError("update_func: expected a Module")
        self._mod = func if self._mod is None else self._mod.update(func)
        return GlobalVar(name)

    # -- functions and blocks
    @contextlib.contextmanager
    def function(self, name, params=None, attrs=None):
        if self._fb is not None:
            raise _lib.Error("bb.function: a function is already being built")
        self._fname, self._params, self._result = name, params, None
        ps = list(params or [])
        with lock:
            fb = api.fb_new(self._ctx.handle, name, ptr_array([p.handle for p in ps]), len(ps))
            self._fb = self._ctx.check_ptr(fb)
        try:
            for k, v in (attrs or {}).items():
                keep = _Keep()
                val = to_value(v, keep)
                with lock:
                    self._ctx.check_rc(api.fb_set_attr(self._fb, k, ctypes.byref(val)))
            yield self
            if self._result is None:
                raise _lib.Error("bb.function('%s'): no emit_func_output" % name)
            with lock:
                m = api.fb_finish(self._fb, self._result.handle)
                self._add(Module(self._ctx, self._ctx.check_ptr(m)))
        finally:
            api.fb_free(self._fb)
            self._fb = None

    @contextlib.contextmanager
    def dataflow(self):
        self._need_fb("dataflow")
        with lock:
            self._ctx.check_rc(api.fb_begin_block(self._fb, 1))
        self._in_df = True
        try:
            yield self
        finally:
            self._in_df = False
        with lock:
            self._ctx.check_rc(api.fb_end_block(self._fb))

    def _need_fb(self, what):
        if self._fb is None:
            raise _lib.Error("bb.%s outside bb.function" % what)

    def _atom(self, a):
        """a call's argument as the executor wants it: nested calls and
        constants bound to vars first (A-normal form)"""
        k = a.kind
        if k in (G_CALL, G_CONST):
            return self.emit(a)
        if k == G_TUPLE:
            fields = a.fields
            new = [self._atom(f) for f in fields]
            return a if all(x == y for x, y in zip(fields, new)) else tuple_(new)
        return a

    def _normalize(self, value):
        if value.kind == G_TUPLE:
            return self._atom(value)
        if value.kind == G_GET_ITEM:
            t = value.tuple_value
            a = self._atom(t)
            return value if a == t else get_item(a, value.index)
        if value.kind != G_CALL:
            return value
        args = value.args
        new = [self._atom(x) for x in args]
        return value if all(x == y for x, y in zip(args, new)) else with_args(value, new)

    def _emit(self, value, name, output):
        self._need_fb("emit")
        value = self._normalize(_gexpr(value))
        implicit = not self._in_df
        if implicit:
            with lock:
                self._ctx.check_rc(api.fb_begin_block(self._fb, 0))
        self._counter += 1
        if not name:
            name = ("gv%d" if output or not self._in_df else "lv%d") % self._counter
        with lock:
            v = api.fb_emit(self._fb, value.handle, name, 1 if output else 0)
            var = Expr.wrap(self._ctx, self._ctx.check_ptr(v))
        if implicit:
            with lock:
                self._ctx.check_rc(api.fb_end_block(self._fb))
        self._bindings[var.handle] = value
        return var

    def emit(self, value, name_hint=""):
        return self._emit(value, name_hint, False)

    def emit_output(self, value, name_hint=""):
        if not self._in_df:
            raise _lib.Error("bb.emit_output outside bb.dataflow()")
        return self._emit(value, name_hint, True)

    def emit_te(self, func, *args, primfunc_name_hint=None, **kwargs):
        """call a TE function on graph values: its prim func goes into the
        module and a call_tir of it is emitted"""
        phs, tensor_args = [], []
        te_args = []
        for k, a in enumerate(args):
            if isinstance(a, Expr):
                s = a.struct_info
                if s is None or s.kind != "tensor":
                    raise _lib.Error("emit_te: argument %d is not a tensor" % k)
                shape = [d if isinstance(d, _te.Expr) else int(d) for d in s.shape]
                ph = _te.placeholder(shape, s.dtype, name=_arg_name(a, k))
                phs.append(ph)
                tensor_args.append(a)
                te_args.append(ph)
            else:
                te_args.append(a)
        out = func(*te_args, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        name = self._unique(primfunc_name_hint or getattr(func, "__name__", None) or outs[0].name)
        pf = _te.create_prim_func(phs + outs, name=name)
        self._add(pf.mod)
        sinfos = [TensorStructInfo(o.shape, o.dtype) for o in outs]
        out_sinfo = sinfos[0] if len(sinfos) == 1 else TupleStructInfo(sinfos)
        return self.emit(call_tir(name, tensor_args, out_sinfo))

    def emit_func_output(self, output, params=None):
        self._need_fb("emit_func_output")
        if self._in_df:
            raise _lib.Error("bb.emit_func_output inside bb.dataflow()")
        if params is not None:
            ps = list(params)
            with lock:
                self._ctx.check_rc(api.fb_set_params(self._fb, ptr_array([p.handle for p in ps]), len(ps)))
        if isinstance(output, (list, tuple)):
            output = tuple_(output)
        self._result = _gexpr(output)

    def lookup_binding(self, var):
        return self._bindings.get(var.handle) if isinstance(var, Expr) else None


def _arg_name(a, k):
    n = api.g_name(a.handle) if a.kind in (G_VAR, G_DFVAR) else None
    return n or "A%d" % k


# ---- reading a module's graph functions ---------------------------------------------

class Binding:
    def __init__(self, var, value):
        self.var = var
        self.value = value


class BindingBlock:
    def __init__(self, dataflow, bindings):
        self.dataflow = dataflow
        self.bindings = bindings


class Function:
    """A graph function of a module, read back: params, blocks, result, attrs."""

    def __init__(self, mod, name):
        ctx, h = mod._ctx, mod.handle
        if api.gfunc_num_params(h, name) < 0:
            raise _lib.Error("'%s' is not a graph function of the module" % name)
        self.mod, self.name = mod, name
        self.params = [Expr.wrap(ctx, api.gfunc_param(h, name, i)) for i in range(api.gfunc_num_params(h, name))]
        self.blocks = []
        for b in range(api.gfunc_num_blocks(h, name)):
            bs = [Binding(Expr.wrap(ctx, api.gfunc_binding_var(h, name, b, k)),
                          Expr.wrap(ctx, api.gfunc_binding_value(h, name, b, k)))
                  for k in range(api.gfunc_block_size(h, name, b))]
            self.blocks.append(BindingBlock(api.gfunc_block_is_dataflow(h, name, b) == 1, bs))
        self.result = Expr.wrap(ctx, api.gfunc_result(h, name))
        head = mod.func_script(name).splitlines()[:4]
        self.is_primitive = any(ln.strip().startswith("R.func_attr") and '"Primitive"' in ln for ln in head)

    def script(self):
        return self.mod.func_script(self.name)
