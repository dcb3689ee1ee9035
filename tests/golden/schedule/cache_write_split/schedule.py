# j split by 3 overshoots 128: the copy back still covers exactly Y.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[None, 3])
b6 = sch.cache_write(b0, 0, "local")
