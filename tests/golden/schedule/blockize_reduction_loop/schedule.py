# Blockize the reduction loop alone: the outer block keeps a unit reduce
# iter, so it is still a reduction and takes the init; the spatial iters
# live only outside.
b0 = sch.get_block("C")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.blockize(l3)
