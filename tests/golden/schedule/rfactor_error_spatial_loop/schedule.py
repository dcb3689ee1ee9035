# Loop i feeds a spatial iter var, not the reduction.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.rfactor(l1, 0)
