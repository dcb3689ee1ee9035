# Corners of lowering and code generation: a block allocating a local
# buffer inside a loop, loops of extent 1 beside a predicate, vectorized
# math calls and selects, narrow integer types with casts, and a bool mask.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row_local(A: T.Buffer((6, 8), "float32"), B: T.Buffer((6, 8), "float32")):
        T.func_attr({"global_symbol": "row_local", "tir.noalias": True})
        for i in range(6):
            with T.block("row"):
                vi = T.axis.spatial(6, i)
                L = T.alloc_buffer((8,), "float32", scope="local")
                for j in range(8):
                    with T.block("load"):
                        vj = T.axis.spatial(8, j)
                        L[vj] = A[vi, vj] * T.float32(2)
                for j in range(8):
                    with T.block("store"):
                        vj = T.axis.spatial(8, j)
                        B[vi, vj] = L[7 - vj] + L[vj]

    @T.prim_func
    def unit_loops(A: T.Buffer((1, 10), "float32"), B: T.Buffer((1, 10), "float32")):
        T.func_attr({"global_symbol": "unit_loops", "tir.noalias": True})
        for i, j_0, j_1 in T.grid(1, 3, 4):
            with T.block("B"):
                vi = T.axis.spatial(1, i)
                vj = T.axis.spatial(10, j_0 * 4 + j_1)
                T.where(j_0 * 4 + j_1 < 10)
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func
    def vec_math(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "vec_math", "tir.noalias": True})
        for i_0 in range(4):
            for i_1 in T.vectorized(8):
                with T.block("B"):
                    vi = T.axis.spatial(32, i_0 * 8 + i_1)
                    B[vi] = T.if_then_else(A[vi] > T.float32(0), T.exp(A[vi]), T.tanh(A[vi]) * T.float32(0.5))

    @T.prim_func
    def narrow_ints(A: T.Buffer((40,), "int8"), B: T.Buffer((40,), "uint8"), C: T.Buffer((40,), "int32"),
                    D: T.Buffer((40,), "int16")):
        T.func_attr({"global_symbol": "narrow_ints", "tir.noalias": True})
        for i in range(40):
            with T.block("C"):
                vi = T.axis.spatial(40, i)
                C[vi] = T.Cast("int32", A[vi]) * T.Cast("int32", B[vi]) - T.Cast("int32", A[vi]) // 3
                D[vi] = T.Cast("int16", A[vi]) * T.int16(300) + T.Cast("int16", B[vi])

    @T.prim_func
    def masked(A: T.Buffer((16,), "float32"), M: T.Buffer((16,), "bool"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "masked", "tir.noalias": True})
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = T.Select(M[vi], A[vi], A[vi] * T.float32(-1))

    @T.prim_func
    def fused_divmod(A: T.Buffer((12, 8), "float32"), B: T.Buffer((12, 8), "float32")):
        T.func_attr({"global_symbol": "fused_divmod", "tir.noalias": True})
        for f in range(96):
            with T.block("B"):
                vi = T.axis.spatial(12, f // 8)
                vj = T.axis.spatial(8, f % 8)
                B[vi, vj] = A[vi, vj] + A[T.min(vi + 1, 11), T.max(vj - 1, 0)]

    @T.prim_func
    def reduce_from_two(A: T.Buffer((4, 10), "float32"), S: T.Buffer((4,), "float32")):
        T.func_attr({"global_symbol": "reduce_from_two", "tir.noalias": True})
        for i, k in T.grid(4, 8):
            with T.block("S"):
                vi = T.axis.spatial(4, i)
                vk = T.axis.reduce((2, 10), k + 2)
                with T.init():
                    S[vi] = T.float32(1)
                S[vi] = S[vi] * T.float32(0.5) + A[vi, vk]

    @T.prim_func
    def par_nested(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4, 6), "float32")):
        T.func_attr({"global_symbol": "par_nested", "tir.noalias": True})
        for i in T.parallel(4):
            for j in T.parallel(6):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] + T.Cast("float32", vi * 10 + vj)

    @T.prim_func
    def par_local(A: T.Buffer((6, 8), "float32"), B: T.Buffer((6,), "float32")):
        T.func_attr({"global_symbol": "par_local", "tir.noalias": True})
        for i in T.parallel(6):
            with T.block("row"):
                vi = T.axis.spatial(6, i)
                L = T.alloc_buffer((8,), "float32", scope="local")
                for j in range(8):
                    with T.block("sq"):
                        vj = T.axis.spatial(8, j)
                        L[vj] = A[vi, vj] * A[vi, vj]
                for j in range(8):
                    with T.block("sum"):
                        vj = T.axis.reduce(8, j)
                        with T.init():
                            B[vi] = T.float32(0)
                        B[vi] = B[vi] + L[vj]

    @T.prim_func
    def vec_strided(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
        T.func_attr({"global_symbol": "vec_strided", "tir.noalias": True})
        for i in range(8):
            for j in T.vectorized(8):
                with T.block("B"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vj, vi] = A[vi, vj]

    @T.prim_func
    def vec_gather(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        T.func_attr({"global_symbol": "vec_gather", "tir.noalias": True})
        for i_0 in range(4):
            for i_1 in T.vectorized(4):
                with T.block("B"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    B[vi] = A[vi // 2] + A[vi % 3] * T.float32(2)

    @T.prim_func
    def dyn_halves(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "dyn_halves", "tir.noalias": True})
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("B"):
                vi = T.axis.spatial(n, i)
                B[vi] = A[vi // T.int64(2)] - A[n - T.int64(1) - vi]

    @T.prim_func
    def vec_stencil(A: T.Buffer((18,), "float32"), B: T.Buffer((18,), "float32")):
        T.func_attr({"global_symbol": "vec_stencil", "tir.noalias": True})
        for i_0 in range(2):
            for i_1 in T.vectorized(8):
                with T.block("B"):
                    vi = T.axis.spatial((1, 17), i_0 * 8 + i_1 + 1)
                    B[vi] = A[vi + 1] - A[vi - 1] + A[17 - vi] * T.float32(0.25)

    @T.prim_func
    def shifted_split(A: T.Buffer((9, 5), "float32"), B: T.Buffer((8, 4), "float32")):
        T.func_attr({"global_symbol": "shifted_split", "tir.noalias": True})
        for i_0, i_1 in T.grid(8, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i_0, i_1])
                B[vi, vj] = A[(vi * 4 + vj + 1) // 4, (vi * 4 + vj + 1) % 4] + A[(vi * 4 + vj) // 4, (vi * 4 + vj) % 4]
