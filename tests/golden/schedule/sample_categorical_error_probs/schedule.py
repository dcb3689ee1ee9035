# Three candidates, two probabilities.
v0 = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.5, 0.5])
