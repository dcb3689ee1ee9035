b = sch.get_block("Y")
i, j, k = sch.get_loops(b)
sch.split(jj, factors=[None, 4])
