# The compute-root location is not a loop: split refuses it.
b0 = sch.get_block("C")
l1 = sch.sample_compute_location(b0, decision=-1)
l2, l3 = sch.split(l1, factors=[None, 4])
