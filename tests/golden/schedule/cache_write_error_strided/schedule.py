# C's odd elements are not written: copying C's whole region back would
# overwrite them.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, 0, "local")
