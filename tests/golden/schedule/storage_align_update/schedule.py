# A second request for the same axis replaces the first; a negative axis
# counts from the end and adds an entry.
b0 = sch.get_block("Y")
sch.storage_align(b0, 0, 0, 16, 1)
sch.storage_align(b0, 0, 0, 32, 8)
sch.storage_align(b0, 0, -1, 8, 2)
