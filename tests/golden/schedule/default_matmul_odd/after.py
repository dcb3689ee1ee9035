from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((13, 7), "float32"), B: T.Buffer((7, 40), "float32"), C: T.Buffer((13, 40), "float32")):
        T.func_attr({"global_symbol": "mm", "tir.noalias": T.bool(True)})
        C_local = T.alloc_buffer((13, 40), scope="local")
        B_global = T.alloc_buffer((7, 40))
        for j_0 in range(5):
            for ax0_2 in range(7):
                for ax1_1 in T.vectorized(8):
                    with T.block("B_global"):
                        v0 = T.axis.spatial(7, ax0_2)
                        v1 = T.axis.spatial(40, j_0 * 8 + ax1_1)
                        T.reads(B[v0, v1])
                        T.writes(B_global[v0, v1])
                        B_global[v0, v1] = B[v0, v1]
            for i_0 in range(13):
                for i_1_init in T.unroll(1):
                    for j_1_init in T.unroll(1):
                        for j_2_init in T.vectorized(8):
                            with T.block("C_init"):
                                vi = T.axis.spatial(13, i_0 + i_1_init)
                                vj = T.axis.spatial(40, j_0 * 8 + j_1_init * 8 + j_2_init)
                                T.reads()
                                T.writes(C_local[vi, vj])
                                C_local[vi, vj] = T.float32(0.0)
                for k in range(7):
                    for i_1 in T.unroll(1):
                        for j_1 in T.unroll(1):
                            for j_2 in T.vectorized(8):
                                with T.block("C_update"):
                                    vi = T.axis.spatial(13, i_0 + i_1)
                                    vj = T.axis.spatial(40, j_0 * 8 + j_1 * 8 + j_2)
                                    vk = T.axis.reduce(7, k)
                                    T.reads(C_local[vi, vj], A[vi, vk], B_global[vk, vj])
                                    T.writes(C_local[vi, vj])
                                    C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B_global[vk, vj]
                for ax0_1 in T.vectorized(8):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(13, i_0)
                        v1 = T.axis.spatial(40, j_0 * 8 + ax0_1)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]
