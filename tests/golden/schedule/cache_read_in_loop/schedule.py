# B is written and read inside one iteration of i: the copy goes between the
# two inner loops and covers one row.
b0 = sch.get_block("C")
b1 = sch.cache_read(b0, 0, "local")
