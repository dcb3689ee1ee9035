# The predicate skips vk == 0, where S's init would run: the original never
# runs its init, an outer block would.
b0 = sch.get_block("S")
l1, l2, l3 = sch.get_loops(b0)
b4 = sch.blockize(l2)
