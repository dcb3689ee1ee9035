# A loop of extent 1 around C's outer loop.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3 = sch.add_unit_loop(l1)
