# The buffer is named instead of indexed, from its reader; the map
# transposes it.
b0 = sch.get_block("C")
sch.transform_layout(block=b0, buffer="B", index_map=lambda i, j: (j, i))
