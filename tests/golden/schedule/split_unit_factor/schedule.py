# A unit factor with preserve_unit_iters=False: the unit loop's var stays out of the binding.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l1, factors=[1, None], preserve_unit_iters=False)
