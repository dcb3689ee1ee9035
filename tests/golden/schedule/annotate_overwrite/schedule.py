# Setting a key that is there replaces its value in place.
b0 = sch.get_block("Y")
sch.annotate(b0, "b", 7)
