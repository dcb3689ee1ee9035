# The schedule that turns naive.py into the form of tiled.py, for
# 1024x1024x1024 float32 matmul on an AVX-512 CPU.  bench.c applies it to
# naive.py through the library (mlc_sch_run_script) and times the result as
# "scheduled"; `mlcc schedule bench/matmul/naive.py bench/matmul/schedule.py`
# prints the scheduled module.
#
#   * Register tile: rows i -> 128 x 8 (io, ii), columns j -> 32 x 2 x 16
#     (jo, jv, jl), so one tile is 8 rows x two 16-lane vectors of C.
#   * Loop order jo, io, k, ii, jv, jl: each of the 32 column panels (jo) runs
#     its 128 tiles (io), each tile reducing over all of k.
#   * C is accumulated in a "local" cache written back after each tile
#     (reverse_compute_at under io).  Lowering compacts that cache to the
#     8 x 32 tile (src/lower/compact.c), and with ii and jv unrolled and jl
#     vectorized every index into it is a constant: 16 vector registers.
#   * decompose_reduction at k: the tile is zeroed before the k loop instead
#     of testing k == 0 inside it.
#   * B is packed per panel: cache_read + compute_at under jo copies the
#     panel's 1024 x 32 slice of B (compacted to that slice, one per thread)
#     so the k loop streams 128 KiB that stay in L2.
#   * The init and write-back nests are unrolled and vectorized like the
#     update, so they use the same constant indices; jo runs in parallel.
b0 = sch.get_block("C")
i, j, k = sch.get_loops(b0)
io, ii = sch.split(i, factors=[128, 8])
jo, jv, jl = sch.split(j, factors=[32, 2, 16])
sch.reorder(jo, io, k, ii, jv, jl)
c_store = sch.cache_write(b0, 0, "local")
sch.reverse_compute_at(c_store, io)
c_init = sch.decompose_reduction(b0, k)
b_pack = sch.cache_read(b0, 2, "global")
sch.compute_at(b_pack, jo)
sch.vectorize(jl)
sch.unroll(jv)
sch.unroll(ii)
sch.parallel(jo)
# the zeroing of the tile: rows unrolled, the two vectors unrolled, lanes vectorized
_, _, init_i, init_jv, init_jl = sch.get_loops(c_init)
sch.vectorize(init_jl)
sch.unroll(init_jv)
sch.unroll(init_i)
# the write-back of the tile, split like the update
_, _, st_i, st_j = sch.get_loops(c_store)
st_jv, st_jl = sch.split(st_j, factors=[2, 16])
sch.vectorize(st_jl)
sch.unroll(st_jv)
sch.unroll(st_i)
# the packing of B: one 32-lane row copy per k
_, _, pack_j = sch.get_loops(b_pack)
sch.vectorize(pack_j)
