# Virtual threads (TVM's vthread, several logical threads run in turn by one
# real thread) are not lowered for GPU targets: refused, naming the loop.
block_C = sch.get_block("C")
(i,) = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(i, [None, 2, 64])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "vthread.x")
sch.bind(i2, "threadIdx.x")
