# Two caches of A: the second copy reads the first and gets a fresh name.
b0 = sch.get_block("Y")
b1 = sch.cache_read(b0, 0, "shared")
b2 = sch.cache_read(b0, 0, "local")
