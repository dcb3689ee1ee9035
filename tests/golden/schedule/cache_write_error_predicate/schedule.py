# The predicate skips the odd elements, which a copy back would overwrite.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, 0, "local")
