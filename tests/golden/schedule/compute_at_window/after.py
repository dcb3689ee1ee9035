# Expected: B computed per 128-wide tile of C over the 130 elements the tile reads.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def window(A: T.Buffer((1026,), "float32"), C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "window", "tir.noalias": T.bool(True)})
        B = T.alloc_buffer((1026,))
        for i_0 in range(8):
            for ax0 in range(130):
                with T.block("B"):
                    vi = T.axis.spatial(1026, i_0 * 128 + ax0)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi] * T.float32(2.0)
            for i_1 in range(128):
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    T.reads(B[vi:vi + 3])
                    T.writes(C[vi])
                    C[vi] = B[vi] + B[vi + 1] + B[vi + 2]
