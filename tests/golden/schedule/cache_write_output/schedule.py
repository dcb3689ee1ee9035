# Write the output through a local copy, copied back at the end.
b0 = sch.get_block("C")
b1 = sch.cache_write(b0, write_buffer_index=0, storage_scope="local")
