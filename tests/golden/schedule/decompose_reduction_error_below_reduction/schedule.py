# k is outermost: an init inside it would run again at every step of k.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.decompose_reduction(b0, l2)
