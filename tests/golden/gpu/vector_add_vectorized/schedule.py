# 16 blocks of 64 threads, each thread adding four neighbouring elements
# with one vector load per input and one vector store.
block_C = sch.get_block("C")
(i,) = sch.get_loops(block=block_C)
i0, i1, i2 = sch.split(i, [None, 64, 4])
sch.bind(i0, "blockIdx.x")
sch.bind(i1, "threadIdx.x")
sch.vectorize(i2)
