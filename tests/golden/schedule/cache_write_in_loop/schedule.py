# The writer and its reader share loop i: the copy-back goes between them and
# covers one row.
b0 = sch.get_block("B")
b1 = sch.cache_write(b0, 0, "shared")
