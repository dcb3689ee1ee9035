# The init loop over i keeps the symbolic extent n.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.decompose_reduction(b0, l1)
