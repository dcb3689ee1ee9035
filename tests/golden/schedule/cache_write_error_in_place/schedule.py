# C is updated in place: a fresh cache would not hold C's old values.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, 0, "local")
