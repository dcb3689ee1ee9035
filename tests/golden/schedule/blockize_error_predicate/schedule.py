# 16 does not divide 100: the split adds a predicate on i_0 * 16 + i_1,
# which an inner block under i_1 could not read (i_0 is outside it).
b0 = sch.get_block("B")
l1, = sch.get_loops(b0)
l2, l3 = sch.split(l1, factors=[None, 16])
b4 = sch.blockize(l3)
