# B has two dimensions; the map takes three.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("write", 0), lambda i, j, k: (i, j, k))
