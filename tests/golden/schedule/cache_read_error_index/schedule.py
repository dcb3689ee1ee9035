# Block Y reads two buffers: index 2 names none.
b0 = sch.get_block("Y")
b1 = sch.cache_read(b0, 2, "shared")
