b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
sch.reverse_compute_at(b0, l1)
