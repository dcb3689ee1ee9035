# C has no init to split off.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
b3 = sch.decompose_reduction(b0, l1)
