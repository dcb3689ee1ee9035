"""block_builder.py - assembling graph functions into a module (the
BlockBuilder), and reading a module's graph functions back (Function) for
visitors and mutators."""
import contextlib
import ctypes

from . import _lib
from ._lib import api, lock, ptr_array
from ._values import _Keep, to_value
from .ir import Module
from . import te as _te
from .graph import (G_CALL, G_CONST, G_DFVAR, G_GET_ITEM, G_TUPLE, G_VAR, Expr, GlobalVar, TensorStructInfo,
                    TupleStructInfo, _ctx, _gexpr, _name, call_tir, get_item, tuple_, with_args)


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
        self._reserved = set()  # names taken elsewhere (a mutator rebuilding one function)

    # -- the module
    def get(self):
        if self._mod is None:
            raise _lib.Error("the builder holds no function yet")
        return self._mod

    def _add(self, m):
        self._mod = m if self._mod is None else self._mod.update(m)

    def _unique(self, base):
        names = set(self._mod.func_names()) if self._mod is not None else set()
        names |= self._reserved
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
            m = func if fnames[0] == name else func.rename(fnames[0], name)
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
