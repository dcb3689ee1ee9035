# Loop kinds the C target runs: a parallel loop around a reduction, a
# vectorized loop of a width that is not a power of two (with a cast), a
# vectorized loop that broadcasts a per-row value, an unrolled loop longer
# than lowering expands, a serial loop with a start, and a parallel loop
# nested in a serial one.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def par_rowsum(A: T.Buffer((16, 32), "float32"), S: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "par_rowsum", "tir.noalias": True})
        for i in T.parallel(16):
            for k in range(32):
                with T.block("S"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + A[vi, vk]

    @T.prim_func
    def vec_cast(A: T.Buffer((8, 6), "int32"), B: T.Buffer((8, 6), "float32")):
        T.func_attr({"global_symbol": "vec_cast", "tir.noalias": True})
        for i in range(8):
            for j in T.vectorized(6):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = T.Cast("float32", A[vi, vj]) * T.float32(0.5)

    @T.prim_func
    def vec_bias(A: T.Buffer((4, 16), "float32"), b: T.Buffer((4,), "float32"),
                 C: T.Buffer((4, 16), "float32")):
        T.func_attr({"global_symbol": "vec_bias", "tir.noalias": True})
        for i, j_0 in T.grid(4, 2):
            for j_1 in T.vectorized(8):
                with T.block("C"):
                    vi = T.axis.spatial(4, i)
                    vj = T.axis.spatial(16, j_0 * 8 + j_1)
                    C[vi, vj] = A[vi, vj] + b[vi] * T.float32(3)

    @T.prim_func
    def unroll_long(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
        T.func_attr({"global_symbol": "unroll_long", "tir.noalias": True})
        for i in T.unroll(100):
            with T.block("B"):
                vi = T.axis.spatial(100, i)
                B[vi] = A[vi] - T.float32(1)

    @T.prim_func
    def serial_start(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
        T.func_attr({"global_symbol": "serial_start", "tir.noalias": True})
        for i in T.serial(2, 10):
            with T.block("B"):
                vi = T.axis.spatial((2, 12), i)
                B[vi] = A[vi - 2] * 3 - A[vi]

    @T.prim_func
    def nested_par(A: T.Buffer((3, 8, 5), "float32"), B: T.Buffer((3, 8, 5), "float32")):
        T.func_attr({"global_symbol": "nested_par", "tir.noalias": True})
        for b in range(3):
            for i in T.parallel(8):
                for j in T.unroll(5):
                    with T.block("B"):
                        vb, vi, vj = T.axis.remap("SSS", [b, i, j])
                        B[vb, vi, vj] = A[vb, vi, vj] * T.float32(vb + 1) + T.float32(vj)
