# A second non-dividing split (32 by 5) and-s its guard to the predicate already there.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l1, factors=[None, 5])
