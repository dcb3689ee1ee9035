# Only global, shared and local are storage scopes.
b0 = sch.get_block("Y")
b1 = sch.cache_read(b0, 0, "texture")
