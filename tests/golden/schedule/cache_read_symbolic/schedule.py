# A has a symbolic number of rows: the copy loops over n of them.
b0 = sch.get_block("B")
b1 = sch.cache_read(b0, 0, "shared")
