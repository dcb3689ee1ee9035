# Factoring the only reduction loop: the rf block is a plain copy, no init.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.rfactor(l2, 0)
