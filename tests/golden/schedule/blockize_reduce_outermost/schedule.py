# With k outermost, the outer block is a reduction over k and its init
# clears the whole output, in copies of the spatial loops, at k == 0.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
sch.reorder(l3, l1, l2)
b4 = sch.blockize(target=l1)
