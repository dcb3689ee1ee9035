# With k0 at 0 the predicate is false for every k1: no partial result would
# be initialised.
b0 = sch.get_block("S")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.rfactor(l3, 0)
