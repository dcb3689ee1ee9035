# The copy back goes inside io, before C, and covers one 8-row tile.
b0 = sch.get_block("B")
b1 = sch.cache_write(b0, 0, "local")
