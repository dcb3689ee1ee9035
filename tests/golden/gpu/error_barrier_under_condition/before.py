# Half the threads stage values in shared memory and read a neighbour's: the
# barrier they need would sit under `if tx < 64`, which the other half never
# reaches.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def half(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "half", "tir.noalias": True})
        S = T.alloc_buffer((256,), scope="shared")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                if tx < 64:
                    with T.block("S"):
                        v = T.axis.spatial(256, bx * 128 + tx)
                        S[v] = A[v]
                    with T.block("B"):
                        v = T.axis.spatial(256, bx * 128 + tx)
                        w = T.axis.spatial(256, bx * 128 + 63 - tx)
                        B[v] = S[w]
