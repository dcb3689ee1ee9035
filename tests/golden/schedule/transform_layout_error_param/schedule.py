# A is a parameter: its layout is part of the function's signature.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("read", 0), lambda i, j: (j, i))
