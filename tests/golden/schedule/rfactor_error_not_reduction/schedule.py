# C is not a reduction.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l2, 0)
