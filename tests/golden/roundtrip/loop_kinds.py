# Every loop kind after scheduling: a parallel outer loop, an unrolled loop,
# a serial loop with an annotation and a start, a vectorized inner loop, and
# a GPU-style function whose loops are bound to block and thread indices.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
        T.func_attr({"global_symbol": "scale", "tir.noalias": True})
        for i_0 in T.parallel(8):
            for i_1 in T.unroll(8):
                for j_0 in range(16):
                    for j_1 in T.vectorized(4):
                        with T.block("B"):
                            vi = T.axis.spatial(64, i_0 * 8 + i_1)
                            vj = T.axis.spatial(64, j_0 * 4 + j_1)
                            T.reads(A[vi, vj])
                            T.writes(B[vi, vj])
                            B[vi, vj] = A[vi, vj] * T.float32(2)

    @T.prim_func
    def shifted(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        T.func_attr({"global_symbol": "shifted", "tir.noalias": True})
        for i in T.serial(1, 63, annotations={"pragma_auto_unroll_max_step": 16}):
            with T.block("B"):
                vi = T.axis.spatial((1, 63), i)
                B[vi] = (A[vi - 1] + A[vi] + A[vi + 1]) / T.float32(3)

    @T.prim_func
    def add_gpu(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"),
                C: T.Buffer((1024,), "float32")):
        T.func_attr({"global_symbol": "add_gpu", "tir.noalias": True})
        for i_0 in T.thread_binding(8, thread="blockIdx.x"):
            for i_1 in T.thread_binding(128, thread="threadIdx.x"):
                with T.block("C"):
                    vi = T.axis.spatial(1024, i_0 * 128 + i_1)
                    C[vi] = A[vi] + B[vi]
