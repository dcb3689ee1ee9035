# B has another writer besides B0.
b0 = sch.get_block("B0")
b1 = sch.cache_write(b0, 0, "local")
