from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32"), C: T.Buffer((4096,), "float32")):
        T.func_attr({"global_symbol": "add", "tir.noalias": T.bool(True)})
        for i_0 in T.thread_binding(16, thread="blockIdx.x"):
            for i_1 in T.thread_binding(64, thread="threadIdx.x"):
                for i_2 in T.vectorized(4):
                    with T.block("C"):
                        vi = T.axis.spatial(4096, i_0 * 256 + i_1 * 4 + i_2)
                        T.reads(A[vi], B[vi])
                        T.writes(C[vi])
                        C[vi] = A[vi] + B[vi]
