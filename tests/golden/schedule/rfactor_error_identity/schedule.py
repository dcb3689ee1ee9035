# Partial sums each starting from 1 would add 1 too many.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l2, 0)
