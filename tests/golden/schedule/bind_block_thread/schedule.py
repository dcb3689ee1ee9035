# GPU-style: 8 blocks of 128 threads.
b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[None, 128])
sch.bind(l2, "blockIdx.x")
sch.bind(loop=l3, thread_axis="threadIdx.x")
