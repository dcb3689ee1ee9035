b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[3, 5])
