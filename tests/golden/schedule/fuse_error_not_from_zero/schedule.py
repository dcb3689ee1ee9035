b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
l3 = sch.fuse(l1, l2)
