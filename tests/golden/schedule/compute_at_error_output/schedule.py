b0 = sch.get_block("C")
b1 = sch.get_block("Y")
l2, l3, l4 = sch.get_loops(b1)
sch.compute_at(b0, l3)
