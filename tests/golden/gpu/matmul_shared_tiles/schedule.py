# The course's blocking_with_shared(sch, 4, 4, 8, 8, 8) with cooperative, vectorized
# fetches: the cache blocks sit under the threadIdx loop, yet shared memory holds
# one tile for the whole thread block, so their region relaxes that loop; the
# last two loops of each cache block are taken with a [-2:] slice.
block_C = sch.get_block("C")
C_local = sch.cache_write(block_C, 0, "local")
i, j, k = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(loop=i, factors=[None, 8, 4])
j0, j1, j2 = sch.split(loop=j, factors=[None, 8, 4])
k0, k1 = sch.split(loop=k, factors=[None, 8])
sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2)
sch.reverse_compute_at(C_local, j1)
sch.bind(i0, "blockIdx.y")
sch.bind(j0, "blockIdx.x")
tx = sch.fuse(i1, j1)
sch.bind(tx, "threadIdx.x")
A_shared = sch.cache_read(block=block_C, read_buffer_index=0, storage_scope="shared")
sch.compute_at(block=A_shared, loop=k0)
inner0, inner1 = sch.get_loops(block=A_shared)[-2:]
inner = sch.fuse(inner0, inner1)
_, tx, vec = sch.split(loop=inner, factors=[None, 64, 4])
sch.vectorize(vec)
sch.bind(tx, "threadIdx.x")
B_shared = sch.cache_read(block=block_C, read_buffer_index=1, storage_scope="shared")
sch.compute_at(block=B_shared, loop=k0)
inner0, inner1 = sch.get_loops(block=B_shared)[-2:]
inner = sch.fuse(inner0, inner1)
_, tx, vec = sch.split(loop=inner, factors=[None, 64, 4])
sch.vectorize(vec)
sch.bind(tx, "threadIdx.x")
sch.decompose_reduction(block_C, k0)
