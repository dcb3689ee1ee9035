# Stage Y for its reader C: the copy goes after Y's writer, before C.
b0 = sch.get_block("C")
b1 = sch.cache_read(b0, read_buffer_index=0, storage_scope="local")
