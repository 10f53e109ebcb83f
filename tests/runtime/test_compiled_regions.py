"""Compiled regions (runtime/regions.py): a graph holding ops the lowering has no form for (MatMul,
Reshape, Transpose) runs its lowerable stretches as kernels and the rest on the interpreter, with the
NumPy path's bits, variables updated in program order, and the NumPy path's errors.

Expected values are the NumPy path's own (the generated code of a twin function with its own variables).
"""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.runtime import regions

numba = pytest.importorskip("numba")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path / "jit"))


def _bits(a):
    a = np.array(a)
    if a.dtype.kind != "f":
        return a.dtype, a.shape, a.tolist()
    a[np.isnan(a)] = np.nan       # which NaN is not compared (see test_compiled.py)
    return a.dtype, a.shape, a.view(f"u{a.itemsize}").tolist()


def _twins(make, *specs):
    """(NumPy-path concrete function, its variables, region runner, its concrete function, its variables)
    for two functions `make()` builds with variables of their own."""
    numpy_fn, numpy_vars = make()
    region_fn, region_vars = make()
    numpy_cf = tf.function(numpy_fn, jit_compile=False).get_concrete_function(*specs)
    region_cf = tf.function(region_fn, jit_compile=False).get_concrete_function(*specs)
    region_plan = regions.plan(region_cf.graph, region_cf._trace.flat_outputs, region_cf.graph.inputs)
    assert region_plan is not None
    fallbacks = []
    for region in region_plan.regions:     # count the calls a kernel did not run
        def counted(*args, _fallback=region.fallback):
            fallbacks.append(1)
            return _fallback(*args)
        region.fallback = counted
    run = regions.compile_now(region_plan)
    run.fallbacks = fallbacks
    return numpy_cf, numpy_vars, run, region_cf, region_vars, region_plan


def _check(make, specs, calls, with_runner=False):
    numpy_cf, numpy_vars, run, region_cf, region_vars, region_plan = _twins(make, *specs)
    captures = region_cf._capture_values()
    for args in calls:
        want = numpy_cf(*args)
        want = want if isinstance(want, (tuple, list)) else (want,)
        got = run(*[a._value for a in args], *captures)
        assert [_bits(g) for g in got] == [_bits(w.numpy()) for w in want]
        assert [_bits(v.numpy()) for v in region_vars] == [_bits(v.numpy()) for v in numpy_vars]
    assert not run.fallbacks, "a region's kernel did not run"
    return (region_plan, run) if with_runner else region_plan


def _rnn_like():
    m = tf.constant(np.linspace(-0.5, 0.5, 12, dtype=np.float32).reshape(3, 4))
    total = tf.Variable(np.zeros(12, np.float32))
    steps = tf.Variable(0, dtype=tf.int32)

    def f(x, n):
        y = tf.reshape(tf.matmul(x, m), [12])          # no compiled form: interpreter steps
        i = tf.constant(0)
        acc = tf.zeros([12])
        while i < n:                                   # a region: the loop and its variable updates
            acc = acc * 0.5 + y
            total.assign_add(acc)
            steps.assign_add(1)
            i += 1
        z = tf.matmul(tf.reshape(total.read_value(), [3, 4]), m, transpose_b=True)
        return z, acc, steps.read_value()
    return f, (total, steps)


def test_loop_between_matmuls_runs_compiled_with_the_numpy_paths_bits():
    rng = np.random.RandomState(0)
    calls = [(tf.constant(rng.randn(3, 3).astype(np.float32)), tf.constant(n)) for n in (5, 0, 40, 7)]
    region_plan = _check(_rnn_like, (tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([], tf.int32)), calls)
    kinds = [[op.type for op in r.members] for r in region_plan.regions]
    assert any("While" in k for k in kinds)
    assert not any("MatMul" in k or "Reshape" in k for k in kinds)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=9, max_size=9),
       st.integers(0, 25))
def test_regions_are_bit_equal_for_any_values(values, n):
    x = tf.constant(np.array(values, np.float32).reshape(3, 3))
    _check(_rnn_like, (tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([], tf.int32)), [(x, tf.constant(n))])


def test_a_step_after_a_region_reads_the_variable_it_wrote():
    def make():
        v = tf.Variable(np.ones((2, 2), np.float32))

        def f(x):
            v.assign_add(x * 2.0 + 1.0)
            v.assign(v.read_value() * 0.5 - x)
            v.assign_sub(x * x)
            moved = tf.transpose(v.read_value())       # an interpreter step reading the new value (a view)
            v.assign_add(moved * 3.0 + 0.25)
            v.assign(v.read_value() * 1.5 - 2.0)
            v.assign_sub(moved / 4.0)
            return v.read_value(), moved
        return f, (v,)
    x = tf.constant(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))
    region_plan, run = _check(make, (tf.TensorSpec([2, 2], tf.float32),), [(x,), (x * 3.0,), (x,)], True)
    assert len(region_plan.regions) == 2
    # the transposed view took a retry once; since then the second region's step copies it first
    steps = [step for step in run.graph_plan.steps if step[1].type == "CompiledRegion"]
    assert [step[2].__name__ for step in steps] == ["run", "copying"]


def test_a_failing_region_falls_back_and_raises_the_numpy_paths_error():
    def make():
        v = tf.Variable(np.zeros(4, np.float32))

        def f(x):
            y = tf.reshape(x, [-1])
            v.assign_add(y * 2.0)
            v.assign_add(y + 1.0)
            v.assign_sub(y * y)
            return v.read_value() + 1.0
        return f, (v,)
    numpy_cf, _, run, region_cf, region_vars, _ = _twins(make, tf.TensorSpec([None, 2], tf.float32))
    captures = region_cf._capture_values()
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot update variable with shape \[4\] using a "
                                                          r"Tensor with shape \[6\]"):
        run(np.ones((3, 2), np.float32), *captures)
    assert region_vars[0].numpy().tolist() == [0.0] * 4        # nothing stored
    assert len(run.fallbacks) == 1
    good = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert _bits(run(good, *captures)[0]) == _bits(numpy_cf(tf.constant(good)).numpy())
    assert len(run.fallbacks) == 1


def test_nothing_worth_compiling_gives_no_plan():
    m = tf.constant(np.eye(3, dtype=np.float32))

    @tf.function
    def only_matmuls(x):
        return tf.matmul(tf.matmul(x, m) + 1.0, m)     # one op between the products: not worth a kernel
    cf = only_matmuls.get_concrete_function(tf.TensorSpec([3, 3], tf.float32))
    assert regions.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs) is None


def test_inexact_stretches_stay_on_the_numpy_path():
    m = tf.constant(np.eye(3, dtype=np.float32))

    @tf.function
    def f(x):
        y = tf.matmul(x, m)
        return tf.exp(tf.sin(y * 2.0) + 1.0) - tf.cos(y)      # float32 libm calls: not NumPy's bits
    cf = f.get_concrete_function(tf.TensorSpec([3, 3], tf.float32))
    assert regions.plan(cf.graph, cf._trace.flat_outputs, cf.graph.inputs) is None


def test_background_compile_hands_over_the_runner():
    numpy_cf, numpy_vars, _, region_cf, region_vars, region_plan = _twins(
        _rnn_like, tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([], tf.int32))
    got = []
    thread = regions.compile_in_background(region_plan, got.append)
    thread.join()
    (run,) = got
    x, n = tf.constant(np.full((3, 3), 0.25, np.float32)), tf.constant(9)
    out = run(x._value, n._value, *region_cf._capture_values())
    assert [_bits(o) for o in out] == [_bits(w.numpy()) for w in numpy_cf(x, n)]


def test_planning_and_compiling_in_the_background():
    numpy_cf, numpy_vars, _, region_cf, region_vars, _ = _twins(
        _rnn_like, tf.TensorSpec([3, 3], tf.float32), tf.TensorSpec([], tf.int32))
    got = []
    thread = regions.compile_in_background(
        lambda: regions.plan(region_cf.graph, region_cf._trace.flat_outputs, region_cf.graph.inputs), got.append)
    thread.join()
    (run,) = got
    x, n = tf.constant(np.full((3, 3), -1.5, np.float32)), tf.constant(4)
    out = run(x._value, n._value, *region_cf._capture_values())
    assert [_bits(o) for o in out] == [_bits(w.numpy()) for w in numpy_cf(x, n)]
    nothing = []
    regions.compile_in_background(lambda: None, nothing.append).join()
    assert nothing == []


def test_a_run_is_split_at_the_op_that_does_not_lower():
    def make():
        v = tf.Variable(np.ones(6, np.float32))

        def f(x):
            a = x * 2.0 + 1.0
            a = a * a - 0.5
            v.assign_add(a)
            b = tf.cast(a * 3.0, tf.int32)              # float-to-int Cast: no compiled form
            c = tf.cast(b, tf.float32) * 0.25 + 1.0
            c = c * c - x
            v.assign_sub(c)
            return v.read_value(), b
        return f, (v,)
    x = tf.constant(np.linspace(-3, 3, 6, dtype=np.float32))
    region_plan = _check(make, (tf.TensorSpec([6], tf.float32),), [(x,), (x * 0.5,)])
    assert len(region_plan.regions) == 2
    casts = [op for r in region_plan.regions for op in r.members if op.type == "Cast"]
    assert [c.inputs[0].dtype.name for c in casts] == ["int32"]     # the int-to-float cast is lowered


def test_interleaved_ops_are_grouped_into_one_region():
    def make():
        m = tf.constant(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4))
        v = tf.Variable(np.zeros((4, 4), np.float32))

        def f(x):
            a = x * 2.0
            p = tf.matmul(x, m)            # the products and the elementwise ops alternate in the op list
            b = a + 1.0
            q = tf.matmul(p, m)
            c = b * b
            r = tf.matmul(q, m)
            d = c - 0.5
            v.assign_add(d)
            return r, d, v.read_value()
        return f, (v,)
    x = tf.constant(np.linspace(0, 1, 16, dtype=np.float32).reshape(4, 4))
    region_plan = _check(make, (tf.TensorSpec([4, 4], tf.float32),), [(x,), (x - 0.5,)])
    (region,) = region_plan.regions
    assert [op.type for op in region.members][:4] == ["Mul", "AddV2", "Mul", "Sub"]
