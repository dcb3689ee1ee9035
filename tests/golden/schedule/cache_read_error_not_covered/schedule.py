# H writes half of B, C reads all of it: a cache of what H writes misses half.
b0 = sch.get_block("C")
b1 = sch.cache_read(b0, 0, "shared")
