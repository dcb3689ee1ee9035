# There is no fourth candidate.
v0 = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.25, 0.25, 0.5], decision=3)
