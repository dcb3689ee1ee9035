# compute_at of the rfactor block of a non-dividing split: its predicate
# (k_0 * 3 + k_1 < 8) is more than a domain guard and must not be dropped.
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
k0, k1 = sch.split(k, factors=[None, 3])
rf = sch.rfactor(k0, 0)
b2 = sch.get_block("C")
l = sch.get_loops(b2)
sch.compute_at(rf, l[2])
