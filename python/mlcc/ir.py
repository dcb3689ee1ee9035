"""ir.py - modules: reading TVMScript, printing, structural equality and hash,
and the functions a module holds."""
import os

from . import _lib
from ._lib import api, lock


class Module:
    """An IRModule (immutable).  print(mod) and mod.script() give its text."""

    def __init__(self, ctx, handle):
        self._ctx = ctx
        self.handle = handle

    def script(self):
        with lock:
            return api.module_print(self._ctx.handle, self.handle)

    def __str__(self):
        return self.script()

    def __repr__(self):
        return "<mlcc.Module %s>" % ", ".join(self.func_names())

    def show(self):
        print(self.script())

    def func_names(self):
        with lock:
            n = api.module_num_funcs(self.handle)
            return [api.module_func_name(self.handle, i) for i in range(n)]

    def is_graph_func(self, name):
        names = self.func_names()
        if name not in names:
            raise KeyError(name)
        return api.module_func_is_graph(self.handle, names.index(name)) == 1

    def graph_func_names(self):
        return [n for n in self.func_names() if self.is_graph_func(n)]

    def prim_func_names(self):
        return [n for n in self.func_names() if not self.is_graph_func(n)]

    def __contains__(self, name):
        return name in self.func_names()

    def __getitem__(self, name):
        """the function's text as a one-function view (FuncRef)"""
        if name not in self.func_names():
            raise KeyError("the module has no function named '%s'" % name)
        return FuncRef(self, name)

    def func_script(self, name):
        with lock:
            text = api.module_func_script(self._ctx.handle, self.handle, name)
        if text is None:
            raise _lib.Error(self._ctx.error())
        return text

    def update(self, other):
        """a new module: this one with every function of other put in"""
        _same_ctx(self, other)
        with lock:
            h = api.module_update(self._ctx.handle, self.handle, other.handle)
            return Module(self._ctx, self._ctx.check_ptr(h))

    def rename(self, old, new):
        """a new module: function old called new"""
        with lock:
            h = api.module_rename(self._ctx.handle, self.handle, old, new)
            return Module(self._ctx, self._ctx.check_ptr(h))

    def without(self, name):
        with lock:
            h = api.module_remove(self._ctx.handle, self.handle, name)
            return Module(self._ctx, self._ctx.check_ptr(h))

    def __hash__(self):
        return structural_hash(self)

    def __eq__(self, other):
        if not isinstance(other, Module) or other._ctx is not self._ctx:
            return NotImplemented
        return structural_equal(self, other)


class FuncRef:
    """A function of a module, by name."""

    def __init__(self, mod, name):
        self.mod = mod
        self.name = name

    def script(self):
        return self.mod.func_script(self.name)

    def __str__(self):
        return self.script()

    @property
    def is_graph(self):
        return self.mod.is_graph_func(self.name)


def _same_ctx(a, b):
    if a._ctx is not b._ctx:
        raise _lib.Error("objects of two different contexts cannot be combined")


def parse(text, name="<text>", ctx=None):
    """Read TVMScript text (an @I.ir_module class, or one @T.prim_func /
    @R.function) into a Module; mlcc.ParseError with the located message."""
    if not isinstance(text, str):
        raise TypeError("mlcc.parse: text must be a str, got %s" % type(text).__name__)
    ctx = ctx or _lib.default_context()
    data = text.encode("utf-8")
    with lock:
        h = api.module_parse(ctx.handle, name, data, len(data))
        return Module(ctx, ctx.check_ptr(h, _lib.ParseError))


def load(path, ctx=None):
    """Read a TVMScript file."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("mlcc.load: path must be a str, got %s" % type(path).__name__)
    ctx = ctx or _lib.default_context()
    with lock:
        h = api.module_load(ctx.handle, os.fspath(path))
        return Module(ctx, ctx.check_ptr(h, _lib.ParseError))


def structural_equal(a, b, map_free_vars=False):
    """alpha-equivalence of two modules"""
    _check_mod(a, "structural_equal")
    _check_mod(b, "structural_equal")
    _same_ctx(a, b)
    with lock:
        return api.module_equal(a.handle, b.handle) == 1


def assert_structural_equal(a, b):
    if not structural_equal(a, b):
        with lock:
            diff = api.module_diff(a._ctx.handle, a.handle, b.handle)
        raise AssertionError("modules differ: %s" % diff)


def structural_hash(a):
    _check_mod(a, "structural_hash")
    with lock:
        return api.module_hash(a.handle)


def _check_mod(m, what):
    if not isinstance(m, Module):
        raise TypeError("mlcc.%s: expected an mlcc.Module, got %s" % (what, type(m).__name__))
