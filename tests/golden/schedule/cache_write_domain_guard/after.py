from tvm.script import ir as I
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def prefix(A: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        T.func_attr({"global_symbol": "prefix", "tir.noalias": T.bool(True)})
        C_local = T.alloc_buffer((128,), scope="local")
        for i_0, i_1 in T.grid(34, 3):
            with T.block("C"):
                vi = T.axis.spatial(100, i_0 * 3 + i_1)
                T.where(i_0 * 3 + i_1 < 100)
                T.reads(A[vi])
                T.writes(C_local[vi])
                C_local[vi] = A[vi] + T.float32(1.0)
        for ax0 in range(100):
            with T.block("C_local"):
                v0 = T.axis.spatial(128, ax0)
                T.reads(C_local[v0])
                T.writes(C[v0])
                C[v0] = C_local[v0]
