b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l1, factors=[None, 8])
