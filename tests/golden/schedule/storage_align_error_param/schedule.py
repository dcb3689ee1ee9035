# C is a parameter: its layout belongs to the caller.
b0 = sch.get_block("C")
sch.storage_align(b0, 0, 0, 16, 1)
