b0 = sch.get_block("B")
b1 = sch.get_block("C")
l2, = sch.get_loops(b1)
sch.compute_at(b0, l2)
