# A sampled compute-inline location (decision -2: B has one consumer and
# is injective): compute_at inlines B into C.
b0 = sch.get_block("B")
l1 = sch.sample_compute_location(b0, decision=-2)
sch.compute_at(b0, l1)
