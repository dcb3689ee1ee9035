# The mm_relu walk-through: split j by [None, 4], then reorder j_0, k, j_1.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4, l5 = sch.split(l2, factors=[None, 4])
sch.reorder(l4, l3, l5)
