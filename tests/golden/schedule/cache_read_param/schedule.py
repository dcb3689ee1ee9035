# Stage A (a parameter: nobody in the function writes it) in shared memory:
# the copy goes first in the root block and covers the whole buffer.
b0 = sch.get_block("Y")
b1 = sch.cache_read(b0, 0, "shared")
