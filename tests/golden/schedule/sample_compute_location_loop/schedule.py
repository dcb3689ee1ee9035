# Y's candidate locations are compute-root (-1) and C's loops i (0) and
# j (1); decision 0 picks i, where compute_at then moves Y.
b0 = sch.get_block("Y")
l1 = sch.sample_compute_location(b0, decision=0)
sch.compute_at(b0, l1)
