# Three loops fused: the middle var is recovered by a division and a remainder.
b0 = sch.get_block("B")
l1, l2, l3 = sch.get_loops(b0)
l4 = sch.fuse(l1, l2, l3)
