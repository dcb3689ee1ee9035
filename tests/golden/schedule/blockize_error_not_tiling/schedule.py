# i_1 steps vi by 4: the iterations under i_1 are strided, not a tile.
b0 = sch.get_block("B")
l1, l2 = sch.get_loops(b0)
b3 = sch.blockize(l2)
