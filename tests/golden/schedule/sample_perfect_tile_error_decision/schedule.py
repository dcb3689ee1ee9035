# 3 * 40 is not j's extent 128.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
v4, v5 = sch.sample_perfect_tile(l2, n=2, decision=[3, 40])
