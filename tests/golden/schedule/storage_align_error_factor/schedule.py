# The factor must be positive.
b0 = sch.get_block("Y")
sch.storage_align(b0, 0, 0, 0, 1)
