"""mlcc - the mlcc compiler from Python: a thin layer over libmlcc.so's
stable C API (include/mlcc/mlcc.h), numpy in and out.  docs/python.md is the
tutorial."""
from ._lib import BuildError, Context, Error, ParseError, ScheduleError
from .ir import FuncRef, Module, assert_structural_equal, load, parse, structural_equal, structural_hash
from .schedule import PRIMITIVES, BlockRV, IntRV, LoopRV, Schedule, Trace
from . import te
from . import transform
from .block_builder import BlockBuilder, Function
from .graph import (Call, Constant, DataflowVar, Expr, ExternFunc, GlobalVar, Op,
                    StructInfo, Tuple, TupleGetItem, TupleStructInfo, TensorStructInfo, Var, call, call_dps_packed,
                    call_op, call_tir, const, get_item, op)
from .graph import tuple_ as tuple  # noqa: A001 - R.tuple's spelling
from .visitor import ExprMutator, ExprVisitor, mutator, visitor
from .runtime import (Function as CompiledFunction, Library, TimeResult, apply_records, build, gpu_unavailable,
                      load_library, register_func, tune)
from .frontend import compile, from_onnx, from_torch  # noqa: A004
from .fx import from_fx


def IRModule(funcs):
    """a module from {name: te.PrimFunc or one-function Module}"""
    mod = None
    for name, f in funcs.items():
        if isinstance(f, te.PrimFunc):
            m = f.with_name(name).mod
        elif isinstance(f, Module):
            m = f
        else:
            raise TypeError("IRModule: %s is a %s, not a te.PrimFunc or Module" % (name, type(f).__name__))
        mod = m if mod is None else mod.update(m)
    if mod is None:
        raise Error("IRModule: no functions")
    return mod


__all__ = [
    "BuildError", "Context", "Error", "ParseError", "ScheduleError", "FuncRef", "Module", "assert_structural_equal",
    "load", "parse", "structural_equal", "structural_hash", "PRIMITIVES", "BlockRV", "IntRV", "LoopRV", "Schedule",
    "Trace", "te", "transform", "BlockBuilder", "Function", "Call", "Constant", "DataflowVar", "Expr",
    "ExternFunc", "GlobalVar", "Op", "StructInfo", "Tuple", "TupleGetItem", "TupleStructInfo", "TensorStructInfo",
    "Var", "call", "call_dps_packed", "call_op", "call_tir", "const", "get_item", "op", "tuple", "ExprMutator",
    "ExprVisitor", "mutator", "visitor", "CompiledFunction", "Library", "TimeResult", "build", "load_library",
    "register_func", "gpu_unavailable", "tune", "apply_records", "compile", "from_onnx", "from_torch", "from_fx", "IRModule",
]
