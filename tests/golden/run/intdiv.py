# Integer division of both kinds on negative operands: floordiv / floormod
# (// and %) round toward minus infinity, T.truncdiv / T.truncmod toward
# zero; also floordiv and floormod of a negative index expression.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def int_divmod(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"),
                   Q: T.Buffer((64,), "int32"), R: T.Buffer((64,), "int32"),
                   TQ: T.Buffer((64,), "int32"), TR: T.Buffer((64,), "int32"),
                   X: T.Buffer((64,), "int32")):
        T.func_attr({"global_symbol": "int_divmod", "tir.noalias": True})
        for i in range(64):
            with T.block("D"):
                vi = T.axis.spatial(64, i)
                Q[vi] = A[vi] // B[vi]
                R[vi] = A[vi] % B[vi]
                TQ[vi] = T.truncdiv(A[vi], B[vi])
                TR[vi] = T.truncmod(A[vi], B[vi])
                X[vi] = (vi - 37) // 5 * 100 + (vi - 37) % 5
