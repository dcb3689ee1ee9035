# Accumulate Y in local memory and copy it back before C reads it.
b0 = sch.get_block("Y")
b1 = sch.cache_write(b0, 0, "local")
