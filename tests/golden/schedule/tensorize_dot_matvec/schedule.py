# Four-element pieces of each row's dot product onto the built-in
# dot_4_f32.  The intrinsic's one-dimensional A stands for a row piece of
# the two-dimensional M (its leading dimension fixed at the row), and its
# C of shape (1,) for the element y[vi].
b0 = sch.get_block("y")
l1, l2 = sch.get_loops(b0)
l3, l4 = sch.split(l2, factors=[None, 4])
sch.tensorize(l4, "dot_4_f32")
