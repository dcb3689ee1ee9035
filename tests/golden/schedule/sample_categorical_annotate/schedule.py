# One of four unroll limits; decision 2 picks the third candidate, 64,
# which the annotation then carries.
b0 = sch.get_block("Y")
v1 = sch.sample_categorical(candidates=[0, 16, 64, 512], probs=[0.25, 0.25, 0.25, 0.25], decision=2)
sch.annotate(b0, "pragma_auto_unroll_max_step", v1)
