# Only global, shared and local are storage scopes.
b0 = sch.get_block("Y")
b1 = sch.cache_write(b0, 0, "warp")
