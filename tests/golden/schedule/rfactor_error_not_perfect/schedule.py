# Reduction loop k0 also holds block D, which the rf nest would repeat.
b0 = sch.get_block("S")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.rfactor(l3, 0)
