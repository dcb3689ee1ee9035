# The copy binds threadIdx.x with 64 threads where the sum uses 128: one launch
# cannot have both.
block_C = sch.get_block("C")
(i,) = sch.get_loops(block=block_C)
i0, i1 = sch.split(i, [None, 128])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
A_shared = sch.cache_read(block_C, read_buffer_index=0, storage_scope="shared")
sch.compute_at(A_shared, i0)
ax = sch.get_loops(A_shared)[-1]
ax0, ax1 = sch.split(ax, [None, 64])
sch.bind(ax1, "threadIdx.x")
