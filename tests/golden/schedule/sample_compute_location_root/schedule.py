# C writes the output, so compute-root is its only location; the sampled
# handle names no loop and the module is unchanged.
b0 = sch.get_block("C")
l1 = sch.sample_compute_location(block=b0)
