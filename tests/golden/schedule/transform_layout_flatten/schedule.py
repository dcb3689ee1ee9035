# Two dimensions into one: the new shape is the range of i * 128 + j.
b0 = sch.get_block("C")
sch.transform_layout(b0, ("read", 0), lambda i, j: (i * 128 + j,))
