# P reads Y before it is written, so it cannot read the cache.
b0 = sch.get_block("Y")
b1 = sch.get_block("P")
b2 = sch.cache_write(b0, 0, "local", consumer_blocks=[b1])
