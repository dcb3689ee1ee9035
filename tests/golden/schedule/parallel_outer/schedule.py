# C's rows run in parallel.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
sch.parallel(l1)
