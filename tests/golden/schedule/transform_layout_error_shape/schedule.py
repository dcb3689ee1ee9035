# i // 2 folds two rows onto one: 16384 elements into a 64 x 128 shape.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("write", 0), lambda i, j: (i // 2, j))
