# Hand-tiled 1024x1024x1024 float32 matmul, C = A @ B, written directly in
# TVMScript in the form a schedule (split, reorder, cache_read/cache_write,
# decompose_reduction, vectorize, unroll, parallel) would leave it.
#
#   * The 32 column panels of C (32 columns each) run in parallel (jo).
#   * Each panel first packs its 1024x32 slice of B into a buffer of its own,
#     Bp[k, jj] = B[k, 32*jo + jj]: B's rows are 4 KiB apart, so the slice is
#     scattered over 1024 pages and cache sets; packed, it is 128 KiB in a
#     row, stays in L2 for the whole panel and streams without conflicts.
#   * The panel is computed in 8x32 tiles (io): the register tile, 8 rows x
#     two 16-lane float32 vectors, is a "local" accumulator C_local of 16
#     AVX-512 registers, set to zero, updated for every k with A[i, k]
#     broadcast times a row of Bp (one FMA per vector), and stored to C once.
#   * Within a tile the rows (ii) and the two vectors (jv) are unrolled and
#     the 16 lanes (jl) vectorized, so every C_local index is a constant and
#     the C compiler keeps the whole tile in registers.
#
# It stays a block program: the reference interpreter runs it (bench
# --interp) and gets A @ B.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((1024, 1024), "float32"),
               B: T.Buffer((1024, 1024), "float32"),
               C: T.Buffer((1024, 1024), "float32")):
        T.func_attr({"global_symbol": "matmul", "tir.noalias": True})
        for jo in T.parallel(32):
            with T.block("panel"):
                tj = T.axis.spatial(32, jo)
                Bp = T.alloc_buffer((1024, 32), "float32")
                for k in range(1024):
                    for jj in T.vectorized(32):
                        with T.block("B_pack"):
                            vk, vjj = T.axis.remap("SS", [k, jj])
                            Bp[vk, vjj] = B[vk, tj * 32 + vjj]
                for io in range(128):
                    with T.block("C_tile"):
                        ti = T.axis.spatial(128, io)
                        C_local = T.alloc_buffer((8, 32), "float32", scope="local")
                        for ii in T.unroll(8):
                            for jv in T.unroll(2):
                                for jl in T.vectorized(16):
                                    with T.block("C_init"):
                                        vi = T.axis.spatial(8, ii)
                                        vj = T.axis.spatial(32, jv * 16 + jl)
                                        C_local[vi, vj] = T.float32(0)
                        for k in range(1024):
                            for ii in T.unroll(8):
                                for jv in T.unroll(2):
                                    for jl in T.vectorized(16):
                                        with T.block("C_update"):
                                            vi = T.axis.spatial(8, ii)
                                            vj = T.axis.spatial(32, jv * 16 + jl)
                                            vk = T.axis.reduce(1024, k)
                                            C_local[vi, vj] = C_local[vi, vj] + A[ti * 8 + vi, vk] * Bp[vk, vj]
                        for ii in T.unroll(8):
                            for jv in T.unroll(2):
                                for jl in T.vectorized(16):
                                    with T.block("C_store"):
                                        vi = T.axis.spatial(8, ii)
                                        vj = T.axis.spatial(32, jv * 16 + jl)
                                        C[ti * 8 + vi, tj * 32 + vj] = C_local[vi, vj]
