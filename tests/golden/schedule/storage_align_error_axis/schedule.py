# Y has two dimensions: axis 2 is none of them.
b0 = sch.get_block("Y")
sch.storage_align(b0, 0, 2, 16, 1)
