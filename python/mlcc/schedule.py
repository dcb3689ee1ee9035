"""schedule.py - mlcc.Schedule: transforming a tensor program interactively.

Every primitive of the library's one primitive table becomes a method, made
from the table's names and parameter lists when this module loads, so a
primitive added in C is callable from Python without a line here.  A refused
primitive raises mlcc.ScheduleError with the library's message, and the
schedule stays exactly as it was."""
import ctypes

from . import _lib
from ._lib import api, lock
from ._values import _Keep, to_value
from .ir import Module

# primitives whose results are lists even when they hold one handle
_LIST_RESULTS = {"get_loops", "get_child_blocks", "get_producers", "get_consumers", "split",
                 "sample_perfect_tile"}
_MAX_OUTS = 16


class _RV:
    kind = None

    def __init__(self, sch, rv_id):
        self._sch = sch
        self.id = rv_id

    def __repr__(self):
        return "%s(%d)" % (type(self).__name__, self.id)

    def __eq__(self, other):
        return type(other) is type(self) and other._sch is self._sch and other.id == self.id

    def __hash__(self):
        return hash((type(self), self.id))


class BlockRV(_RV):
    kind = _lib.V_BLOCK


class LoopRV(_RV):
    kind = _lib.V_LOOP


class IntRV(_RV):
    """A sampled integer; int(rv) or sch.get(rv) gives its value."""
    kind = _lib.V_INTRV

    def __int__(self):
        return self._sch.get(self)

    def __index__(self):
        return self._sch.get(self)


_OUT_KINDS = {_lib.V_BLOCK: BlockRV, _lib.V_LOOP: LoopRV, _lib.V_INTRV: IntRV}


class Schedule:
    """A schedule over one prim func of a module (func_name may be omitted
    when the module has only one)."""

    def __init__(self, mod, func_name=None, seed=0):
        if not isinstance(mod, Module):
            raise TypeError("mlcc.Schedule: expected an mlcc.Module, got %s" % type(mod).__name__)
        self._ctx = mod._ctx
        self._base = mod
        self._seed = seed
        self._h = None
        self.func_name = None
        if func_name is None and len(mod.prim_func_names()) > 1:
            return  # which function: sch.work_on(name), or get_block(..., func_name=name)
        self._open(mod, func_name)

    def _open(self, mod, func_name):
        with lock:
            h = api.schedule_new(self._ctx.handle, mod.handle, func_name, self._seed)
            h = self._ctx.check_ptr(h, _lib.ScheduleError)
        self._close()
        self._h = h
        self.func_name = func_name

    def _close(self):
        h, self._h = self._h, None
        if h:
            api.schedule_free(h)

    def __del__(self):
        try:
            self._close()
        except Exception:  # interpreter shutting down
            pass

    def work_on(self, func_name):
        """schedule another prim func of the current module (a fresh trace)"""
        self._open(self.mod, func_name)

    def _need(self, func_name=None):
        if self._h is None:
            if func_name is None:
                raise _lib.ScheduleError("the module has %d prim funcs (%s): call sch.work_on(name) or pass "
                                         "func_name= to get_block" % (len(self._base.prim_func_names()),
                                                                     ", ".join(self._base.prim_func_names())))
            self._open(self._base, func_name)

    @property
    def mod(self):
        if self._h is None:
            return self._base
        with lock:
            return Module(self._ctx, api.schedule_module(self._h))

    @property
    def trace(self):
        if self._h is None:
            return Trace("")
        with lock:
            return Trace(api.schedule_trace(self._h))

    def show(self):
        print(self.mod.script())

    def get(self, rv):
        """the value of a sampled integer"""
        if not isinstance(rv, IntRV):
            raise TypeError("sch.get: expected a sampled integer (IntRV), got %s" % type(rv).__name__)
        self._need()
        out = ctypes.c_int64()
        with lock:
            self._ctx.check_rc(api.schedule_int_value(self._h, rv.id, ctypes.byref(out)), _lib.ScheduleError)
        return out.value

    def replay(self, script):
        """run schedule-script lines (what a trace prints) on this schedule"""
        if not isinstance(script, str):
            script = str(script)
        self._need()
        with lock:
            self._ctx.check_rc(api.schedule_run_script(self._h, script), _lib.ScheduleError)

    def _handle_of(self, v):
        if isinstance(v, _RV):
            if v._sch is not self:
                raise _lib.ScheduleError("a handle of another schedule")
            return v.kind, v.id
        return None

    def _apply(self, name, params, args, kwargs):
        vals = _bind(name, params, args, kwargs)
        if self._h is None:
            fn = vals[params.index("func_name")] if "func_name" in params and len(vals) > 1 else None
            self._need(fn if isinstance(fn, str) else None)
        keep = _Keep()
        cvals = (_lib.Value * max(len(vals), 1))()
        for i, v in enumerate(vals):
            cvals[i] = to_value(v, keep, self._handle_of, lambda_ok=True)
        outs = (_lib.Value * _MAX_OUTS)()
        n = ctypes.c_int()
        with lock:
            rc = api.schedule_apply(self._h, name, cvals, len(vals), outs, _MAX_OUTS, ctypes.byref(n))
            self._ctx.check_rc(rc, _lib.ScheduleError)
        res = [_OUT_KINDS[outs[i].kind](self, outs[i].i) if outs[i].kind in _OUT_KINDS else None
               for i in range(n.value)]
        if name in _LIST_RESULTS:
            return res
        if not res:
            return None
        return res[0] if len(res) == 1 else res


class Trace(str):
    """The trace as schedule-script lines; print(sch.trace) shows them."""

    def show(self):
        print(self)


def _bind(name, params, args, kwargs):
    """args and kwargs to one value per parameter, as Python binds a call"""
    vals = [None] * len(params)
    given = [False] * len(params)
    names = [p.lstrip("*") for p in params]
    pos = list(args)
    for i, p in enumerate(params):
        if not pos:
            break
        if p.startswith("*"):
            vals[i] = list(pos[0]) if len(pos) == 1 and isinstance(pos[0], (list, tuple)) else pos
            given[i] = True
            pos = []
            break
        vals[i] = pos.pop(0)
        given[i] = True
    if pos:
        raise TypeError("sch.%s() takes %d arguments (%s), got %d" % (name, len(params), ", ".join(names),
                                                                        len(args)))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError("sch.%s() got an unexpected keyword argument '%s' (parameters: %s)"
                            % (name, k, ", ".join(names)))
        i = names.index(k)
        if given[i]:
            raise TypeError("sch.%s() got multiple values for argument '%s'" % (name, k))
        vals[i] = v
        given[i] = True
    # a variadic parameter given nothing is an empty list
    for i, p in enumerate(params):
        if p.startswith("*") and not given[i]:
            vals[i] = []
    while vals and vals[-1] is None:
        vals.pop()
    return vals


def _make_method(name, params):
    def method(self, *args, **kwargs):
        return self._apply(name, params, args, kwargs)
    method.__name__ = name
    method.__qualname__ = "Schedule." + name
    method.__doc__ = "sch.%s(%s): the schedule primitive (see docs/schedule.md)" % (name, ", ".join(params))
    return method


def _install_primitives():
    n = api.schedule_num_prims()
    for i in range(n):
        name = api.schedule_prim_name(i)
        params = api.schedule_prim_params(i).split()
        setattr(Schedule, name, _make_method(name, params))
    Schedule.get_sblock = Schedule.get_block  # the newest spelling


_install_primitives()
PRIMITIVES = [api.schedule_prim_name(i) for i in range(api.schedule_num_prims())]
