b0 = sch.get_block("Y")
b1 = sch.get_block("C")
l2, l3 = sch.get_loops(b1)
sch.compute_at(b0, l2, index=1)
