# B, an intermediate buffer, stored as 16x16 tiles: both its writer and its
# reader index the tiled layout afterwards.
b0 = sch.get_block("B")
sch.transform_layout(b0, ("write", 0), lambda i, j: (i // 16, j // 16, i % 16, j % 16))
