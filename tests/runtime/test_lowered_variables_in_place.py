"""Compiled kernels that write a variable's update into the variable's own array (runtime/lowering.py's
`write_in_place`, runtime/tiering.py's `u_unshared` proof), and ResourceApplyGradientDescent lowered.

An earlier read keeps its value whatever holds it: eager code, traced code, another thread. A kernel
writes in place only when nothing but the variable holds the array, and gives the NumPy path's bits.
"""

import numpy as np
import pytest

import tensorflux as tf
from helpers import array_address as _address, race_updates_with_reads
from tensorflux._src.framework import errors
from tensorflux._src.ops import state as S
from tensorflux._src.runtime import lowering, tiering

numba = pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path / "jit"))


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.view(f"u{a.itemsize}").tolist()


def _updater(v, jit_compile=True):
    @tf.function(jit_compile=jit_compile)
    def update(g):
        v.assign_sub(0.5 * g)
    return update


def test_the_proof_reads_numpys_flags_here():
    assert tiering._flags_offset() is not None


def test_an_unshared_array_is_written_through():
    v = tf.Variable(np.ones((64, 64), np.float32))
    update = _updater(v)
    g = tf.ones([64, 64])
    update(g)
    cf = update.get_concrete_function(g)
    assert "u_unshared" in cf._fn.lowered.source and cf._fn.lowered.probes
    resource = v.handle._value
    before = _address(resource.value)
    update(g)
    update(g)
    assert _address(resource.value) == before
    np.testing.assert_array_equal(v.numpy(), -0.5)


_HOLDS = {
    "the read tensor": lambda t: t,
    "its array": lambda t: t._value,
    "a reshape (a NumPy view)": lambda t: tf.reshape(t, [-1]),
    "a NumPy view of the array": lambda t: t._value[1:3],
    "another variable": lambda t: tf.Variable(t),
}


@pytest.mark.parametrize("hold", _HOLDS.values(), ids=_HOLDS.keys())
def test_eager_reads_keep_their_values(hold):
    v = tf.Variable(np.ones((64, 64), np.float32))
    update = _updater(v)
    g = tf.ones([64, 64])
    update(g)                         # compiled now; the next calls may write in place
    kept = hold(v.read_value())
    before = np.array(kept)
    update(g)
    update(g)
    np.testing.assert_array_equal(np.asarray(kept), before)
    np.testing.assert_array_equal(v.numpy(), -0.5)     # three updates of 0.5


def test_the_eager_check_can_fail(monkeypatch):
    """With a proof that always passes, the same check sees a held read change."""
    from numba.extending import intrinsic
    real = tiering._in_place_intrinsics

    def careless(numba):
        made = real(numba)

        @intrinsic
        def u_unshared(typingctx, array, probe):
            def codegen(context, builder, signature, args):
                return context.get_constant(numba.types.boolean, True)
            return numba.types.boolean(array, probe), codegen
        made["u_unshared"] = u_unshared
        return made

    monkeypatch.setattr(tiering, "_in_place_intrinsics", careless)
    monkeypatch.setattr(tiering, "_HELPERS", {})
    v = tf.Variable(np.ones((64, 64), np.float32))
    update = _updater(v)
    g = tf.ones([64, 64])
    update(g)
    kept = v.read_value()
    update(g)
    assert (kept.numpy() == 0.0).all()      # the read changed under it


def test_traced_reads_keep_their_values():
    v = tf.Variable(np.ones((64, 64), np.float32))

    @tf.function(jit_compile=True)
    def read_then_update(g):
        r = v.read_value()
        v.assign_sub(0.5 * g)
        return r

    update = _updater(v)
    g = tf.ones([64, 64])
    for k in range(3):                  # the kernel reads the variable: it never writes in place
        np.testing.assert_array_equal(read_then_update(g).numpy(), 1.0 - 0.5 * k)
    assert "u_unshared" not in read_then_update.get_concrete_function(g)._fn.lowered.source
    outside = read_then_update(g)       # returns the value before this update: 1 - 1.5
    update(g)
    update(g)
    np.testing.assert_array_equal(outside.numpy(), -0.5)
    np.testing.assert_array_equal(v.numpy(), -2.0)


def test_a_read_of_the_variable_in_the_graph_after_the_update_sees_the_new_value():
    v = tf.Variable(np.ones(16, np.float32))

    @tf.function(jit_compile=True)
    def step(g):
        v.assign_sub(0.5 * g)
        return v.read_value() * 2.0

    g = tf.ones([16])
    first = step(g)
    second = step(g)
    np.testing.assert_array_equal(first.numpy(), 1.0)
    np.testing.assert_array_equal(second.numpy(), 0.0)


@pytest.mark.parametrize("write", ["fused", "assign_sub", "apply"])
def test_reads_in_another_thread_keep_their_values(write):
    """One thread updates through a compiled kernel; another reads and checks, while computing with the
    read (NumPy releases the GIL), that every element keeps the value it had."""
    shape = (256, 256)
    v = tf.Variable(np.zeros(shape, np.float32))

    @tf.function(jit_compile=True)
    def update(g):
        if write == "fused":
            v.assign_sub(1.0 * g)
        elif write == "assign_sub":
            v.assign_sub(g)
        else:
            S.resource_apply_gradient_descent(v.handle, 1.0, g)

    g = tf.ones(shape) * 0.5
    update(g)
    assert update.get_concrete_function(g)._fn.lowered.probes
    updates, in_place = race_updates_with_reads(v, update, g, 1)
    assert in_place > 0
    np.testing.assert_array_equal(v.numpy(), -0.5 * updates)


def _train(jit_compile, steps=5):
    rs = np.random.RandomState(0)
    # the weights are larger than what the interpreter keeps until the graph returns (its reads are
    # dropped after their last use); the biases' reads are kept, so their updates allocate
    variables = [tf.Variable(rs.randn(*shape).astype(np.float32) * 0.1)
                 for shape in ((80, 64), (64,), (64, 72), (72,))]
    x = tf.constant(rs.randn(16, 80).astype(np.float32))
    y = tf.constant(rs.randn(16, 72).astype(np.float32))

    @tf.function(jit_compile=jit_compile)
    def step(x, y):
        w1, b1, w2, b2 = variables
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) + b2 - y))
        grads = tape.gradient(loss, variables)
        for v, g in zip(variables, grads):
            v.assign_sub(0.1 * g)
        return loss

    losses = [step(x, y).numpy() for _ in range(steps)]
    return step, (x, y), variables, losses


def test_compiled_regions_write_through_and_give_the_numpy_paths_bits():
    step, args, variables, losses = _train(True)
    _, _, plain, plain_losses = _train(False)
    assert _bits(losses) == _bits(plain_losses)
    for a, b in zip(variables, plain):
        assert _bits(a.numpy()) == _bits(b.numpy())
    regions = step.get_concrete_function(*args)._fn.regions
    assert any(r.lowered.probes for r in regions)
    weights = variables[0::2]
    addresses = [_address(v.handle._value.value) for v in weights]
    step(*args)
    assert [_address(v.handle._value.value) for v in weights] == addresses


def test_a_later_check_is_repeated_before_the_first_write():
    v = tf.Variable(np.ones(8, np.float32))
    u = tf.Variable(np.ones((2, 3), np.float32))

    @tf.function(jit_compile=True)
    def step(g, h):
        v.assign_sub(0.5 * g)
        u.assign_sub(0.5 * h)

    cf = step.get_concrete_function(tf.TensorSpec([8], tf.float32), tf.TensorSpec([2, 3], tf.float32))
    source = lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs)).source
    lines = source.splitlines()
    first_write = next(k for k, line in enumerate(lines) if "u_unshared" in line)
    later = [line.strip() for line in lines[first_write:] if line.strip().startswith("if ") and "shape" in line]
    earlier = [line.strip() for line in lines[:first_write]]
    assert later and all(check in earlier for check in later)


def _raises_after_the_update(b_spec, good_b, bad_b):
    v = tf.Variable(np.ones(8, np.float32))

    @tf.function(jit_compile=True)
    def step(g, a, b):
        v.assign_sub(0.5 * g)
        return a + b

    spec = tf.TensorSpec([None], tf.float32)
    cf = step.get_concrete_function(tf.TensorSpec([8], tf.float32), spec, b_spec)
    source = lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs)).source
    g = tf.ones([8])
    step(g, tf.ones([3]), good_b)
    with pytest.raises(errors.InvalidArgumentError):
        step(g, tf.ones([3]), bad_b)
    # a kernel that raised runs again on the NumPy path: an update written in place before the raise
    # would have been applied twice
    np.testing.assert_array_equal(v.numpy(), 0.0)
    return source


def test_a_check_of_inputs_after_the_update_runs_before_it():
    source = _raises_after_the_update(tf.TensorSpec([None], tf.float32), tf.ones([3]), tf.ones([4]))
    assert "u_unshared" in source


def test_no_write_in_place_before_an_op_that_can_still_raise():
    """Broadcasting arrays of unknown shapes may raise anywhere in the kernel: nothing is written in place."""
    source = _raises_after_the_update(tf.TensorSpec([None, None], tf.float32), tf.ones([4, 3]),
                                      tf.ones([4, 2]))
    assert "u_unshared" not in source


# -- ResourceApplyGradientDescent ---------------------------------------------------------------------

def _apply_step(jit_compile, dtype=np.float32, delta_first=False):
    v = tf.Variable(np.linspace(-2, 2, 24).reshape(4, 6).astype(dtype))

    @tf.function(jit_compile=jit_compile)
    def step(alpha, g):
        S.resource_apply_gradient_descent(v.handle, alpha, g)
        return v.read_value() if delta_first else alpha
    return step, v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_resource_apply_gradient_descent_lowers_with_the_numpy_kernels_bits(dtype):
    rs = np.random.RandomState(3)
    alphas = [dtype(0.1), dtype(3.0), dtype(np.nan), dtype(-0.0)]
    results = {}
    for mode in (False, True):
        step, v = _apply_step(mode, dtype)
        seen = []
        for alpha in alphas:
            g = rs.randn(4, 6).astype(dtype)
            g[0, 0] = np.nan
            step(tf.constant(alpha), tf.constant(g))
            seen.append(_bits(v.numpy()))
        if mode:
            cf = step.get_concrete_function(tf.constant(alphas[0]), tf.constant(g))
            assert hasattr(cf._fn, "kernel") and "ResourceApplyGradientDescent" not in cf._fn.lowered.source
        results[mode] = seen
        rs = np.random.RandomState(3)
    assert results[True] == results[False]


def test_resource_apply_gradient_descent_of_another_dtype_is_left_to_the_numpy_kernel():
    v = tf.Variable(np.ones(4, np.float32))

    @tf.function
    def step(alpha, g):
        S.resource_apply_gradient_descent(v.handle, alpha, g)

    cf = step.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([None], tf.float32))
    with pytest.raises(lowering.Unsupported):
        lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))


def test_a_fused_update_op_list_lowers():
    """The op list update fusion makes (runtime/passes/update_fusion.py) lowers too, with the bits of the
    Mul and AssignSub it replaces."""
    from tensorflux._src.runtime import passes
    v = tf.Variable(np.linspace(-1, 1, 12).astype(np.float32))

    @tf.function
    def step(g):
        v.assign_sub(0.3 * g)
        return g

    g = tf.constant(np.linspace(3, 5, 12).astype(np.float32))
    cf = step.get_concrete_function(g)
    ops, outputs = passes.run_all(cf.graph, list(cf.outputs), fuse_updates=True)
    assert "ResourceApplyGradientDescent" in [op.type for op in ops]
    lowered = lowering.lower(cf.graph, outputs, list(cf.graph.inputs), ops=ops)
    run = tiering.compile_now(lowered, [g._value, v.handle._value])
    want = v.numpy() - np.float32(0.3) * g.numpy()
    run(g._value, v.handle._value)
    assert _bits(v.numpy()) == _bits(want)
