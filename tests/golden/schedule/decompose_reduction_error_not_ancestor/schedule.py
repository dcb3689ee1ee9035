# C's loop does not enclose Y.
b0 = sch.get_block("Y")
b1 = sch.get_block("C")
l2, l3 = sch.get_loops(b1)
b4 = sch.decompose_reduction(b0, l2)
