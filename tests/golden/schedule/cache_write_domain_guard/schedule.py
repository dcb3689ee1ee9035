# i split by 3 runs 102 iterations for 100 elements: the copy back keeps to
# the 100 the block writes (C[100:128] keep their values).
b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[None, 3])
b4 = sch.cache_write(b0, 0, "local")
