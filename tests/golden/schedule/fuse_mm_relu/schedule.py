# Both loops of C fused into one of 128 * 128 iterations.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3 = sch.fuse(l1, l2)
