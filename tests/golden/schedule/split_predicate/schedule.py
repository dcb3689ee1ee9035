# 127 does not divide by 4: 32 * 4 = 128 iterations, the last one masked by T.where.
b0 = sch.get_block("C")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[None, 4])
