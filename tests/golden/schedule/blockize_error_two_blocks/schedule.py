# The loop holds two blocks; blockize takes the one block under a loop nest.
b0 = sch.get_block("B")
l1, = sch.get_loops(b0)
b2 = sch.blockize(l1)
