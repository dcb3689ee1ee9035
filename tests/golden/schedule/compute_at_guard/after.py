# Expected: B's 8-wide tile loop guarded by i_0 * 8 + ax0 < 100.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def guard(A: T.Buffer((100,), "float32"), C: T.Buffer((100,), "float32")):
        T.func_attr({"global_symbol": "guard", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((100,))
        for i_0 in range(13):
            for ax0 in range(8):
                with T.block("B"):
                    vi = T.axis.spatial(100, i_0 * 8 + ax0)
                    T.where(i_0 * 8 + ax0 < 100)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi] + T.float32(1.0)
            for i_1 in range(8):
                with T.block("C"):
                    vi = T.axis.spatial(100, i_0 * 8 + i_1)
                    T.where(i_0 * 8 + i_1 < 100)
                    T.reads(B[vi])
                    T.writes(C[vi])
                    C[vi] = B[vi] * B[vi]
