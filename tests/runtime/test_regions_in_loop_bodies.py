"""Compiled regions inside loop bodies and branches (runtime/regions.py `nested`): a While whose body holds
an op the lowering has no form for (MatMul) stays a Python loop, and the body's lowerable stretches run as
kernels on every iteration, with the NumPy path's bits; the same for the branches of an If.

jit_compile=True asks for every such region; automatic tiering only for regions of at least
`regions.AUTOMATIC_NESTED_MIN_ELEMENTS` elements (the interpreter's loop costs more on small tensors). Expected values are the NumPy path's own (the generated code of the same
concrete function)."""
import time

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.runtime import regions

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path / "jit"))


def _bits(a):
    a = np.array(a)
    a[np.isnan(a)] = np.nan
    return a.dtype, a.shape, a.view(f"u{a.itemsize}").tolist()


def _counting(region_plan, calls):
    """Counts, in `calls`, the kernel calls of every region of the plan and of its nested plans."""
    for graphs, plans in region_plan.nested.values():
        for p in plans:
            if p is not None:
                _counting(p, calls)
    for region in region_plan.regions:
        def counted(*args, _fallback=region.fallback):
            calls["fallback"] += 1
            return _fallback(*args)
        region.fallback = counted


def _loop_with_a_product():
    w = tf.constant(np.linspace(-0.3, 0.3, 16, dtype=np.float32).reshape(4, 4))

    @tf.function(jit_compile=False)
    def f(x, n):
        i = tf.constant(0)
        while i < n:
            y = tf.matmul(x, w)                                   # no compiled form
            x = tf.tanh(y * 0.5 + x) - tf.sqrt(tf.abs(x)) * 0.25  # a region, run on every iteration
            i += 1
        return x
    return f


def test_a_loop_whose_body_holds_a_matmul_runs_its_elementwise_stretch_compiled():
    f = _loop_with_a_product()
    spec = (tf.TensorSpec([3, 4], tf.float32), tf.TensorSpec([], tf.int32))
    cf = f.get_concrete_function(*spec)
    region_plan = regions.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs, inside_control_flow=True)
    assert region_plan is not None and not region_plan.regions        # nothing to compile outside the loop
    ((graphs, plans),) = region_plan.nested.values()
    cond_plan, body_plan = plans
    assert cond_plan is None and body_plan is not None
    kinds = sorted(op.type for r in body_plan.regions for op in r.members)
    assert "MatMul" not in kinds and {"Tanh", "Sqrt", "Abs"} <= set(kinds)
    calls = {"fallback": 0}
    _counting(region_plan, calls)
    run = regions.compile_now(region_plan)
    assert len(run.regions) == len(body_plan.regions)
    rs = np.random.RandomState(0)
    for n in (0, 1, 5, 40):
        x = rs.randn(3, 4).astype(np.float32)
        want = cf(tf.constant(x), tf.constant(n, tf.int32)).numpy()
        (got,) = run(x, np.int32(n), *cf._capture_values())
        assert _bits(got) == _bits(want), n
    assert calls["fallback"] == 0, "a body region's kernel did not run"


def test_branches_of_an_if_get_regions_of_their_own():
    w = tf.constant(np.eye(3, dtype=np.float32) * 0.5)

    @tf.function(jit_compile=False)
    def f(x, flag):
        if flag:
            y = tf.matmul(x, w)
            return tf.tanh(y * 0.25 - x) + tf.square(x) * 0.5 - tf.sqrt(tf.abs(x))
        return tf.matmul(x, w, transpose_b=True)
    cf = f.get_concrete_function(tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([], tf.bool))
    region_plan = regions.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs, inside_control_flow=True)
    assert region_plan is not None
    ((graphs, (then_plan, else_plan)),) = region_plan.nested.values()
    assert then_plan is not None and else_plan is None
    run = regions.compile_now(region_plan)
    x = np.random.RandomState(1).randn(2, 3).astype(np.float32)
    for flag in (True, False):
        want = cf(tf.constant(x), tf.constant(flag)).numpy()
        (got,) = run(x, np.bool_(flag), *cf._capture_values())
        assert _bits(got) == _bits(want), flag


def test_jit_compile_true_runs_the_loop_body_in_regions(caplog):
    w = tf.constant(np.linspace(-0.3, 0.3, 16, dtype=np.float32).reshape(4, 4))

    def body(x, n):
        i = tf.constant(0)
        while i < n:
            x = tf.tanh(tf.matmul(x, w) * 0.5 + x) - tf.sqrt(tf.abs(x)) * 0.25
            i += 1
        return x
    compiled = tf.function(body, jit_compile=True)
    plain = tf.function(body, jit_compile=False)
    x = tf.constant(np.random.RandomState(2).randn(3, 4).astype(np.float32))
    with caplog.at_level("WARNING", logger="tensorflux"):
        got = compiled(x, tf.constant(7)).numpy()
    # (before loop bodies were cut into regions, this function ran on the NumPy path)
    assert "runs in compiled regions around that op" in caplog.text
    assert _bits(got) == _bits(plain(x, tf.constant(7)).numpy())


def _automatic_plan(cf):
    return regions.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs, inside_control_flow=True,
                        nested_min_elements=regions.AUTOMATIC_NESTED_MIN_ELEMENTS)


def test_automatic_tiering_leaves_small_loop_bodies_to_the_generated_code():
    f = _loop_with_a_product()
    small = f.get_concrete_function(tf.TensorSpec([3, 4], tf.float32), tf.TensorSpec([], tf.int32))
    assert _automatic_plan(small) is None
    # an unknown row count is no evidence of size either
    unknown = f.get_concrete_function(tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([], tf.int32))
    assert _automatic_plan(unknown) is None


def _wide_loop():
    w = tf.constant(np.linspace(-0.3, 0.3, 64 * 64, dtype=np.float32).reshape(64, 64) / 64)

    def f(x, n):
        i = tf.constant(0)
        while i < n:
            x = tf.tanh(tf.matmul(x, w) * 0.5 + x) - tf.sqrt(tf.abs(x)) * 0.25
            i += 1
        return x
    return f


def test_automatic_tiering_cuts_loop_bodies_of_large_tensors():
    f = tf.function(_wide_loop())
    cf = f.get_concrete_function(tf.TensorSpec([32, 64], tf.float32), tf.TensorSpec([], tf.int32))
    region_plan = _automatic_plan(cf)
    assert region_plan is not None
    ((graphs, (cond_plan, body_plan)),) = region_plan.nested.values()
    assert cond_plan is None and body_plan is not None
    assert all(regions._elements(r.members) >= regions.AUTOMATIC_NESTED_MIN_ELEMENTS for r in body_plan.regions)


def test_a_hot_function_switches_to_loop_body_regions_with_the_same_bits(monkeypatch):
    body = _wide_loop()
    hot, plain = tf.function(body), tf.function(body, jit_compile=False)
    x = tf.constant(np.random.RandomState(3).randn(32, 64).astype(np.float32))
    n = tf.constant(3)
    cf = hot.get_concrete_function(x, n)
    switched = []
    original = type(cf)._switch_to_regions

    def spy(self, runner):
        switched.append(runner)
        original(self, runner)
    monkeypatch.setattr(type(cf), "_switch_to_regions", spy)
    from tensorflux._src.function import jit_compile
    jit_compile.regions_in_background(cf, cf._switch_to_regions)
    deadline = time.monotonic() + 120
    while not switched and time.monotonic() < deadline:
        time.sleep(0.05)
    assert switched, "the regions were not built"
    assert switched[0].regions, "no region compiled"
    for k in (0, 1, 4):
        got = hot(x, tf.constant(k)).numpy()
        assert _bits(got) == _bits(plain(x, tf.constant(k)).numpy()), k
