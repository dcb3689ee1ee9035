# Register tiling for a GPU: every thread accumulates an 8 x 8 tile of C in
# local memory (cache_write), 8 x 8 threads per block, k in steps of 4; the
# local tile is written back under the thread loops and its init is split
# off in front of the reduction.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, 0, "local")
l2, l3, l4 = sch.get_loops(b0)
l5, l6, l7 = sch.split(l2, factors=[None, 8, 8])
l8, l9, l10 = sch.split(l3, factors=[None, 8, 8])
l11, l12 = sch.split(l4, factors=[None, 4])
sch.unroll(l12)
sch.reorder(l5, l8, l6, l9, l11, l12, l7, l10)
sch.reverse_compute_at(b1, l9)
sch.bind(l5, "blockIdx.y")
sch.bind(l8, "blockIdx.x")
sch.bind(l6, "threadIdx.y")
sch.bind(l9, "threadIdx.x")
b13 = sch.decompose_reduction(b0, l11)
