# Block C writes one buffer: index 1 names none.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, 1, "local")
