# Loop i holds two blocks.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l1, 0)
