# A matmul after scheduling, as a schedule dump shows it: tiled loops (split
# indices in the bindings), a local cache buffer written back by its own
# block, and an explicit root block carrying an annotation.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        with T.block("root"):
            T.reads()
            T.writes()
            T.block_attr({"meta_schedule.unroll_explicit": 16})
            C_local = T.alloc_buffer((128, 128), scope="local")
            for i_0, j_0 in T.grid(16, 32):
                for i_1, j_1 in T.grid(8, 4):
                    for k in range(128):
                        with T.block("C"):
                            vi = T.axis.spatial(128, i_0 * 8 + i_1)
                            vj = T.axis.spatial(128, j_0 * 4 + j_1)
                            vk = T.axis.reduce(128, k)
                            T.reads(A[vi, vk], B[vk, vj])
                            T.writes(C_local[vi, vj])
                            with T.init():
                                C_local[vi, vj] = T.float32(0)
                            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
                for ax0, ax1 in T.grid(8, 4):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(128, i_0 * 8 + ax0)
                        v1 = T.axis.spatial(128, j_0 * 4 + ax1)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]
