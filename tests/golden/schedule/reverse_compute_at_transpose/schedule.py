b0 = sch.get_block("B")
b1 = sch.get_block("C")
l2, l3, l4, l5 = sch.get_loops(b0)
sch.reverse_compute_at(b1, l4, preserve_unit_loops=True)
