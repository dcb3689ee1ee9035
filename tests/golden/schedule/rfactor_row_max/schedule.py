# A max reduction (init: the smallest float32) factored over k's inner part.
b0 = sch.get_block("M")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[None, 16])
b5 = sch.rfactor(l4, 1)
