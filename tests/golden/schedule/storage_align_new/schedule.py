# Record a padding request for the rows of Y (annotation only).
b0 = sch.get_block("Y")
sch.storage_align(b0, 0, axis=0, factor=16, offset=1)
