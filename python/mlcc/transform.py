"""transform.py - the library's graph passes as functions of a module,
made from its pass table: mlcc.transform.legalize_ops(mod),
mlcc.transform.fuse_ops(mod), ... and the whole pipeline."""
from . import _lib
from ._lib import api, lock
from .ir import Module

PASSES = [api.pass_name(i) for i in range(api.pass_count())]


def _check(mod, what):
    if not isinstance(mod, Module):
        raise TypeError("mlcc.transform.%s: expected an mlcc.Module, got %s" % (what, type(mod).__name__))


def run_pass(mod, name):
    """one graph pass by name (PASSES lists them)"""
    _check(mod, name)
    ctx = mod._ctx
    with lock:
        h = api.run_pass(ctx.handle, mod.handle, name)
        return Module(ctx, ctx.check_ptr(h))


def pipeline(mod, last=None, march=None):
    """the graph pipeline up to and including pass `last` (default: all);
    default schedules sized for march (None: this CPU; "none": none)"""
    _check(mod, "pipeline")
    ctx = mod._ctx
    with lock:
        h = api.pipeline(ctx.handle, mod.handle, last, march)
        return Module(ctx, ctx.check_ptr(h))


def _make(name):
    def p(mod):
        return run_pass(mod, name)
    p.__name__ = name
    p.__doc__ = "the %s graph pass (docs/design-notes.md)" % name
    return p


for _name in PASSES:
    globals()[_name] = _make(_name)

__all__ = ["PASSES", "run_pass", "pipeline"] + PASSES + ["_lib"]
