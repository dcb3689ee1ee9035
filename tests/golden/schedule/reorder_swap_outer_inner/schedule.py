# Only the named loops move: k and i trade places, j (not named) keeps its place.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
sch.reorder(l3, l1)
