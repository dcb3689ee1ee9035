# i - 64 runs from -64: a layout's indices start at 0.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("write", 0), lambda i, j: (i - 64, j))
