# A sampled compute-root location is no loop: compute_at leaves Y where it
# is and the module is unchanged.
b0 = sch.get_block("Y")
l1 = sch.sample_compute_location(b0, decision=-1)
sch.compute_at(b0, l1)
