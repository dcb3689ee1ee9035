# Three factors, the middle one inferred: 128 = 4 * 4 * 8, keyword arguments.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(block=b0)
l3, l4, l5 = sch.split(loop=l2, factors=[4, None, 8])
