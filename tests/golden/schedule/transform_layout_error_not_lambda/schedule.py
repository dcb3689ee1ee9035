# The index map must be a lambda.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("write", 0), [1, 0])
