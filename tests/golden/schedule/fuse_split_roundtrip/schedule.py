# Fusing the two halves of a split gives the original loop back: the binding simplifies to the fused var.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[None, 16])
l5 = sch.fuse(l3, l4)
