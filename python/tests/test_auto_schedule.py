"""The automatic-optimization chapter: a stochastic schedule (tile sizes
drawn by sample_perfect_tile), several seeds tried, each candidate built,
checked against numpy and timed, the best one's trace replayed."""
import numpy as np

import mlcc
from test_tensor_program import MM_RELU, inputs, mm_relu_ref


def stochastic_schedule_mm(sch):
    block_Y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_Y)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_Y, k)
    return sch, j_factors


def test_random_search():
    mod = mlcc.parse(MM_RELU)
    a, b = inputs()
    want = mm_relu_ref(a, b)
    best = None
    seen = set()
    for seed in range(4):
        sch, factors = stochastic_schedule_mm(mlcc.Schedule(mod, seed=seed))
        f = [sch.get(x) for x in factors]
        assert f[0] * f[1] == 128
        seen.add(tuple(f))
        assert "sch.sample_perfect_tile(" in sch.trace and "decision=" in sch.trace
        fn = mlcc.build(sch.mod)["mm_relu"]
        c = fn(a, b)
        np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)
        t = fn.time(a, b, c, number=1, repeat=2).mean
        if best is None or t < best[0]:
            best = (t, sch)
    assert len(seen) >= 2  # the seeds explore different tilings
    # the best trace replays to the same program, decisions included
    replayed = mlcc.Schedule(mod)
    replayed.replay(best[1].trace)
    assert mlcc.structural_equal(replayed.mod, best[1].mod)


def test_same_seed_same_schedule():
    mod = mlcc.parse(MM_RELU)
    s1, _ = stochastic_schedule_mm(mlcc.Schedule(mod, seed=7))
    s2, _ = stochastic_schedule_mm(mlcc.Schedule(mod, seed=7))
    assert str(s1.trace) == str(s2.trace)
    assert mlcc.structural_equal(s1.mod, s2.mod)
