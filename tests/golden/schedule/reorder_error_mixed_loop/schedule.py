# j and k fused then split: each part feeds both vj and vk.  Putting the inner part
# outside would start some output elements' reductions before their init.
b0 = sch.get_block("Y")
l1, l2, l3 = sch.get_loops(b0)
l4 = sch.fuse(l2, l3)
l5, l6 = sch.split(l4, factors=[None, 256])
sch.reorder(l6, l5)
