# 8 thread blocks of 128 threads, one element per thread.
block_C = sch.get_block("C")
(i,) = sch.get_loops(block=block_C)
i0, i1 = sch.split(i, [None, 128])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
