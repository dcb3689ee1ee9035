# The partial sums of 16 columns each, for n rows.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[4, 16])
b5 = sch.rfactor(l3, 0)
