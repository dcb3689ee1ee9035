# After the split, loop j is gone: its handle is stale.
b = sch.get_block("Y")
i, j, k = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 4])
sch.split(j, factors=[None, 2])
