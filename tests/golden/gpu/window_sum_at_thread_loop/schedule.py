# The walk-through's own spelling: the shared stage computed at the
# threadIdx loop itself.  Shared memory is one per thread block, so the
# stage's region relaxes that loop and still covers the block's 131 inputs.
nthread = 128
block_C = sch.get_block("C")
(i,) = sch.get_loops(block=block_C)
i0, i1 = sch.split(i, [None, nthread])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope="shared")
sch.compute_at(A_shared, i1)
ax = sch.get_loops(A_shared)[-1]
ax0, ax1 = sch.split(ax, [None, nthread])
sch.bind(ax1, "threadIdx.x")
