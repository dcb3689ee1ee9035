b0 = sch.get_block("B")
b1 = sch.get_block("C")
l2, = sch.get_loops(b0)
sch.reverse_compute_at(b1, l2)
