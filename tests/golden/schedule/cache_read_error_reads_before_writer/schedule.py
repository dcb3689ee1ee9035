# The block itself reads Y before Y's writer runs.
b0 = sch.get_block("P")
b1 = sch.cache_read(b0, 0, "shared")
