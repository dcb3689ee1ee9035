# 64 x 32 threads: each axis is within its limit, the block is not.
b = sch.get_block("C")
(i,) = sch.get_loops(b)
i0, i1, i2 = sch.split(i, [None, 32, 64])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.y")
sch.bind(i2, "threadIdx.x")
