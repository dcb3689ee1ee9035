"""visitor.py - walking and rewriting graph functions from Python.

ExprVisitor calls visit_call_ / visit_var_ / ... for each value of a
function; ExprMutator rebuilds a function binding by binding through a
BlockBuilder, so a Python pass can replace a call by another (the course's
ewise_fma rewrite), add functions to the module (dense + add fusion) and
look up what a var was bound to (lookup_binding)."""
from . import _lib
from .block_builder import BlockBuilder, Function
from .graph import G_CALL, G_CONST, G_DFVAR, G_GET_ITEM, G_TUPLE, G_VAR, get_item, tuple_, with_args
from .ir import Module


class ExprVisitor:
    def visit_expr(self, e):
        k = e.kind
        if k == G_CALL:
            return self.visit_call_(e)
        if k == G_VAR:
            return self.visit_var_(e)
        if k == G_DFVAR:
            return self.visit_dataflow_var_(e)
        if k == G_TUPLE:
            return self.visit_tuple_(e)
        if k == G_GET_ITEM:
            return self.visit_tuple_getitem_(e)
        if k == G_CONST:
            return self.visit_constant_(e)
        return self.visit_other_(e)

    def visit_call_(self, call):
        for a in call.args:
            self.visit_expr(a)

    def visit_tuple_(self, t):
        for f in t.fields:
            self.visit_expr(f)

    def visit_tuple_getitem_(self, g):
        self.visit_expr(g.tuple_value)

    def visit_var_(self, v):
        pass

    def visit_dataflow_var_(self, v):
        pass

    def visit_constant_(self, c):
        pass

    def visit_other_(self, e):
        pass

    def visit_function(self, mod, name):
        f = Function(mod, name)
        for b in f.blocks:
            for bd in b.bindings:
                self.visit_binding(bd.var, bd.value)
        self.visit_expr(f.result)

    def visit_binding(self, var, value):
        self.visit_expr(value)


class ExprMutator:
    """Rebuilds graph functions.  Override visit_call_ (or another visit_*_);
    call self.visit_expr_post_order(e) for the default rebuild of e's
    children.  self.builder_ is the BlockBuilder the new functions go into
    (builder_.add_func puts new functions in the module)."""

    def __init__(self, mod=None):
        self.builder_ = BlockBuilder(mod)
        self._var_map = {}

    # -- values
    def visit_expr(self, e):
        k = e.kind
        if k == G_CALL:
            return self.visit_call_(e)
        if k in (G_VAR, G_DFVAR):
            return self.visit_var_(e)
        if k == G_TUPLE:
            return self.visit_tuple_(e)
        if k == G_GET_ITEM:
            return self.visit_tuple_getitem_(e)
        if k == G_CONST:
            return self.visit_constant_(e)
        return e

    def visit_expr_post_order(self, e):
        """e with its children rebuilt (shared when nothing changed)"""
        k = e.kind
        if k in (G_VAR, G_DFVAR):
            return self._var_map.get(e.handle, e)
        if k == G_CALL:
            old = e.args
            new = [self.visit_expr(a) for a in old]
            return e if all(a == b for a, b in zip(old, new)) else with_args(e, new)
        if k == G_TUPLE:
            old = e.fields
            new = [self.visit_expr(a) for a in old]
            return e if all(a == b for a, b in zip(old, new)) else tuple_(new)
        if k == G_GET_ITEM:
            t = self.visit_expr(e.tuple_value)
            return e if t == e.tuple_value else get_item(t, e.index)
        return e

    def visit_call_(self, call):
        return self.visit_expr_post_order(call)

    def visit_var_(self, v):
        return self._var_map.get(v.handle, v)

    def visit_tuple_(self, t):
        return self.visit_expr_post_order(t)

    def visit_tuple_getitem_(self, g):
        return self.visit_expr_post_order(g)

    def visit_constant_(self, c):
        return c

    def lookup_binding(self, var):
        """the value var was bound to in the function being rebuilt, or None"""
        return self.builder_.lookup_binding(var)

    # -- functions and modules
    def visit_function(self, mod, name):
        """function `name` of mod rebuilt: a one-function Module"""
        f = Function(mod, name)
        bb = self.builder_
        saved = bb._mod
        bb._mod = None
        bb._reserved = set(saved.func_names()) - {name} if saved is not None else set()
        try:
            with bb.function(name, f.params, attrs={"Primitive": 1} if f.is_primitive else None):
                for b in f.blocks:
                    if b.dataflow:
                        with bb.dataflow():
                            self._rebuild_bindings(b, True)
                    else:
                        self._rebuild_bindings(b, False)
                bb.emit_func_output(self.visit_expr(f.result))
            built = bb._mod
        finally:
            extra = bb._mod
            bb._mod = saved
            bb._reserved = set()
        # functions the pass added while rebuilding go into the module too
        return built if extra is None else extra

    def _rebuild_bindings(self, block, dataflow):
        bb = self.builder_
        for bd in block.bindings:
            new = self.visit_expr(bd.value)
            name = bd.var.name_hint
            is_output = dataflow and bd.var.kind == G_VAR
            nv = bb._emit(new, name, is_output)
            self._var_map[bd.var.handle] = nv

    def transform(self, mod):
        """every graph function of mod (but fused primitives) rebuilt"""
        if not isinstance(mod, Module):
            raise TypeError("transform: expected an mlcc.Module")
        from .transform import infer_sinfo
        mod = infer_sinfo(mod)  # the values' struct info, which rebuilt op calls are checked against
        self.builder_._mod = mod
        for name in mod.graph_func_names():
            if Function(mod, name).is_primitive:
                continue
            cur = self.builder_.get()
            rebuilt = self.visit_function(cur, name)
            self.builder_._mod = self.builder_.get().update(rebuilt)
        return self.builder_.get()


def mutator(cls):
    """the course's decorator spelling; classes work without it"""
    return cls


def visitor(cls):
    return cls


__all__ = ["ExprVisitor", "ExprMutator", "mutator", "visitor", "_lib"]
