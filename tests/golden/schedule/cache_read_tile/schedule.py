# The copy of B goes inside io and covers one 8-row tile; the rotated
# column index is not monotone in j, so the copy covers every column.
b0 = sch.get_block("C")
b1 = sch.cache_read(b0, 0, "shared")
