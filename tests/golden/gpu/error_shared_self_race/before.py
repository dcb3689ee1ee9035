# A shift in shared memory in place: thread t reads element t + 1 while
# thread t + 1 writes it, in one step, which no barrier can order.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def shift(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "shift", "tir.noalias": True})
        S = T.alloc_buffer((256,), scope="shared")
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("S"):
                    v = T.axis.spatial(256, bx * 128 + tx)
                    S[v] = A[v]
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("shift"):
                    v = T.axis.spatial(256, bx * 128 + tx)
                    T.where(tx < 127)
                    S[v] = S[v + 1]
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("B"):
                    v = T.axis.spatial(256, bx * 128 + tx)
                    B[v] = S[v]
