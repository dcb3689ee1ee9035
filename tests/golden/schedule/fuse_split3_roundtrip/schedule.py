# A three-way split undone by fusing its loops: the divisions and remainders recombine.
b0 = sch.get_block("C")
l1, l2 = sch.get_loops(b0)
l3, l4, l5 = sch.split(l2, factors=[4, 4, 8])
l6 = sch.fuse(l3, l4, l5)
