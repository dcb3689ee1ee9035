# 2048 threads on one axis: no device runs a block that large.
b = sch.get_block("C")
(i,) = sch.get_loops(b)
i0, i1 = sch.split(i, [None, 2048])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
