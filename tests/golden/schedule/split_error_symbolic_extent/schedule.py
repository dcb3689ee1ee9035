b0 = sch.get_block("B")
(l1,) = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[8, 4])
