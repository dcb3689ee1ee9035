# Tile the sum by 128 over blockIdx.x / threadIdx.x, stage the input tile in
# shared memory under the block loop, and copy it with the block's threads.
b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[None, 128])
sch.bind(l2, "blockIdx.x")
sch.bind(l3, "threadIdx.x")
b4 = sch.cache_read(b0, 0, "shared")
sch.compute_at(b4, l2)
l5, l6 = sch.get_loops(b4)
l7, l8 = sch.split(l6, factors=[None, 128])
sch.bind(l8, "threadIdx.x")
