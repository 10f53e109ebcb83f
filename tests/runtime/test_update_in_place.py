"""Variable updates written through the variable's buffer (ops/state.py's ResourceApplyGradientDescent, made
from `v.assign_sub(c * g)` by runtime/passes/update_fusion.py).

An earlier read keeps its value whatever runs the update: eager code, traced code, another thread. The
fused update writes into the variable's array only when nothing else holds it, and gives the Mul and
AssignSub's bits. The traced graph, its GraphDef and SavedModel keep the user's Mul and AssignSub.
"""
import os

import numpy as np
import pytest

import tensorflux as tf
from helpers import array_address as _address, race_updates_with_reads
from tensorflux._src.ops import state as S
from tensorflux._src.runtime import passes
from tensorflux._src.runtime.passes import update_fusion


@pytest.fixture
def loops():
    pytest.importorskip("numba")
    for dtype in (np.float32, np.float64):
        for ndim in (1, 2):
            for table in (S.IN_PLACE_LOOPS, S.SUB_LOOPS):
                loop = table[(np.dtype(dtype), ndim)]
                loop.hot.build_now()
                assert loop.ready
    return S.IN_PLACE_LOOPS


def _fused_ops(cf):
    ops, outputs = passes.run_all(cf.graph, list(cf.outputs))
    return update_fusion.fuse_variable_updates(ops, outputs).ops


# -- the pass ----------------------------------------------------------------------------------------

def test_a_scalar_times_g_into_assign_sub_becomes_one_update_either_operand_order():
    v, w = tf.Variable(np.ones((3, 4), np.float32)), tf.Variable(np.ones(4, np.float64))

    @tf.function
    def step(g, lr):
        v.assign_sub(0.5 * g)
        w.assign_sub(tf.cast(g[0], tf.float64) * tf.cast(lr, tf.float64))
        return lr

    cf = step.get_concrete_function(tf.TensorSpec([3, 4], tf.float32), tf.TensorSpec([], tf.float32))
    ops = _fused_ops(cf)
    fused = [op for op in ops if op.type == "ResourceApplyGradientDescent"]
    assert [op.attrs["_delta_first"] for op in fused] == [False, True]
    assert [op.name for op in fused] == ["AssignSubVariableOp", "AssignSubVariableOp_1"]
    assert not [op for op in ops if op.type in ("Mul", "AssignSubVariableOp")]
    # what was traced, and what is exported, is what the user wrote
    traced = [op.type for op in cf.graph.get_operations()]
    assert traced.count("Mul") == 2 and traced.count("AssignSubVariableOp") == 2
    assert "ResourceApplyGradientDescent" not in traced
    nodes = [n.op for n in cf.graph.as_graph_def().node]
    assert nodes.count("AssignSubVariableOp") == 2 and "ResourceApplyGradientDescent" not in nodes


def test_what_is_not_fused():
    v = tf.Variable(np.ones(4, np.float32))
    i = tf.Variable(np.ones(4, np.int32))

    @tf.function
    def step(g, h):
        p = 0.5 * g
        v.assign_sub(p)             # the product is also returned
        v.assign_sub(g * h)         # no scalar operand
        v.assign_add(0.5 * g)       # an addition
        i.assign_sub(2 * tf.cast(g, tf.int32))   # integers: TensorFlow has no kernel for them
        return p

    cf = step.get_concrete_function(tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32))
    types = [op.type for op in _fused_ops(cf)]
    assert "ResourceApplyGradientDescent" not in types and types.count("AssignSubVariableOp") == 3


def test_the_pass_can_be_switched_off(monkeypatch):
    v = tf.Variable(np.ones(4, np.float32))
    cf = tf.function(lambda g: v.assign_sub(0.5 * g)).get_concrete_function(tf.TensorSpec([4], tf.float32))
    monkeypatch.setattr(update_fusion, "ENABLED", False)
    assert "ResourceApplyGradientDescent" not in [op.type for op in _fused_ops(cf)]


def test_control_inputs_on_the_assign_sub_follow_the_fused_op():
    v = tf.Variable(np.ones(4, np.float32))

    @tf.function
    def step(g):
        update = v.assign_sub(0.5 * g, read_value=False)
        with tf.control_dependencies([update]):
            return tf.identity(g)

    ops = _fused_ops(step.get_concrete_function(tf.TensorSpec([4], tf.float32)))
    fused = next(op for op in ops if op.type == "ResourceApplyGradientDescent")
    for op in ops:
        assert all(c.type != "AssignSubVariableOp" for c in op.control_inputs)
    assert any(fused in op.control_inputs for op in ops)


def test_a_saved_model_keeps_the_users_ops(tmp_path):
    v = tf.Variable(np.ones((3, 4), np.float32))

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float32)])
        def step(self, g):
            v.assign_sub(0.5 * g)
            return tf.constant(0.0)

    m = M()
    m.v = v
    for _ in range(3):
        m.step(tf.ones([3, 4]))       # compiled from the second call
    tf.saved_model.save(m, str(tmp_path))
    raw = open(os.path.join(tmp_path, "saved_model.pb"), "rb").read()
    assert b"AssignSubVariableOp" in raw and b"ResourceApplyGradientDescent" not in raw


# -- same numbers ------------------------------------------------------------------------------------

def _train(steps, enabled, monkeypatch):
    monkeypatch.setattr(update_fusion, "ENABLED", enabled)
    rs = np.random.RandomState(0)
    w = tf.Variable(rs.randn(64, 32).astype(np.float32))
    b = tf.Variable(np.zeros(32, np.float32))
    x = tf.constant(rs.randn(16, 64).astype(np.float32))
    y = tf.constant(rs.randn(16, 32).astype(np.float32))

    @tf.function
    def step(lr):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(lr * gw)
        b.assign_sub(gb * 0.1)
        return loss

    for _ in range(steps):
        step(tf.constant(0.05))
    return w.numpy(), b.numpy()


def test_a_training_loop_gives_the_same_bits_fused_or_not(loops, monkeypatch):
    fused = _train(6, True, monkeypatch)
    plain = _train(6, False, monkeypatch)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


# -- an earlier read keeps its value -----------------------------------------------------------------

def _update(resource, alpha, delta):
    S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta, _assign_sub=True)


def test_an_unshared_array_is_written_through(loops):
    v = tf.Variable(np.ones((64, 64), np.float32))
    resource = v.handle._value
    before = _address(resource.value)
    S.resource_apply_gradient_descent(v.handle, 0.5, np.ones((64, 64), np.float32))
    assert _address(resource.value) == before
    np.testing.assert_array_equal(v.numpy(), 0.5)


def _eager_reads_survive(v, hold):
    """A read taken before an update (`hold` makes what is kept of it) still shows the old value after it."""
    before = v.numpy()            # every element 1
    kept = hold(v.read_value())
    S.resource_apply_gradient_descent(v.handle, 0.5, np.ones((64, 64), np.float32))
    return bool((np.asarray(kept) == 1).all()) and np.array_equal(v.numpy(), before - 0.5)


_HOLDS = {
    "the read tensor": lambda t: t,
    "its array": lambda t: t._value,                          # the variable's own array, shared
    "a reshape (a NumPy view)": lambda t: tf.reshape(t, [-1]),   # its array's base is the variable's
    "a NumPy view of the array": lambda t: t._value[1:3],
}


@pytest.mark.parametrize("hold", _HOLDS.values(), ids=_HOLDS.keys())
def test_eager_reads_keep_their_values(loops, hold):
    assert _eager_reads_survive(tf.Variable(np.ones((64, 64), np.float32)), hold)


def test_the_eager_check_can_fail(loops, monkeypatch):
    """With a loop that writes whatever holds the array, the same check sees the reads change."""
    loop = S.IN_PLACE_LOOPS[(np.dtype(np.float32), 2)]

    def careless(old, alpha, delta, probe):
        np.subtract(old, np.multiply(alpha, delta), out=old)
        return True

    monkeypatch.setattr(loop, "run", careless)
    monkeypatch.setattr(S, "_count", lambda array: 0)
    for hold in _HOLDS.values():
        assert not _eager_reads_survive(tf.Variable(np.ones((64, 64), np.float32)), hold)


def test_traced_reads_keep_their_values(loops):
    v = tf.Variable(np.ones((64, 64), np.float32))

    @tf.function
    def read_then_update(g):
        r = v.read_value()
        v.assign_sub(0.5 * g)
        return r

    @tf.function
    def update(g):
        v.assign_sub(0.5 * g)

    g = tf.ones([64, 64])
    for k in range(4):                  # the first call walks the graph, the later ones run the compiled code
        r = read_then_update(g)
        np.testing.assert_array_equal(r.numpy(), 1.0 - 0.5 * k)
    outside = v.read_value()
    update(g)
    update(g)
    np.testing.assert_array_equal(outside.numpy(), -1.0)
    np.testing.assert_array_equal(v.numpy(), -2.0)
    del outside, r
    resource = v.handle._value
    before = _address(resource.value)
    update(g)
    np.testing.assert_array_equal(v.numpy(), -2.5)
    assert _address(resource.value) == before       # nothing held it: written through (fused or AssignSub)


_UPDATES = {"fused": lambda v, g: v.assign_sub(0.5 * g), "assign_sub": lambda v, g: v.assign_sub(g)}


@pytest.mark.parametrize("write", _UPDATES.values(), ids=_UPDATES.keys())
def test_reads_in_another_thread_keep_their_values(loops, write):
    """One thread updates (traced, compiled), another reads and checks, while computing with the read
    (NumPy releases the GIL), that every element keeps the value it had."""
    shape = (256, 256)
    v = tf.Variable(np.zeros(shape, np.float32))

    @tf.function
    def update(g):
        write(v, g)

    g = tf.ones(shape) * (0.5 if write is _UPDATES["assign_sub"] else 1.0)
    update(g)
    update(g)
    updates, in_place = race_updates_with_reads(v, update, g, 2)
    assert in_place > 0
    np.testing.assert_array_equal(v.numpy(), -0.5 * updates)


def test_an_update_of_a_value_read_after_another_update(loops):
    """A read ordered after a fused update (its automatic control input) is a copied op in the fused list:
    the next fused update reads the copy."""
    v = tf.Variable(np.ones(8, np.float32))
    w = tf.Variable(np.full(8, 2.0, np.float32))

    def step(g):
        v.assign_sub(0.5 * g)
        w.assign_sub(0.25 * v.read_value())
        return w.read_value()

    traced = tf.function(step)
    g = tf.constant(np.arange(8, dtype=np.float32))
    for _ in range(3):
        got = traced(g).numpy()
    v2, w2 = tf.Variable(np.ones(8, np.float32)), tf.Variable(np.full(8, 2.0, np.float32))
    v, w = v2, w2
    for _ in range(3):
        want = step(g).numpy()
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# -- AssignSubVariableOp writes through the buffer too --------------------------------------------------

def test_assign_sub_writes_an_unshared_array_through_and_keeps_earlier_reads(loops):
    v = tf.Variable(np.ones((64, 64), np.float32))
    resource = v.handle._value
    before = _address(resource.value)
    v.assign_sub(np.full((64, 64), 0.25, np.float32))
    assert _address(resource.value) == before
    kept = [v.read_value(), v.read_value()._value, tf.reshape(v.read_value(), [-1]), v.read_value()._value[1:3]]
    v.assign_sub(np.full((64, 64), 0.25, np.float32))
    for k in kept:
        assert (np.asarray(k) == 0.75).all()
    np.testing.assert_array_equal(v.numpy(), 0.5)


def test_assign_add_keeps_the_numpy_form(loops):
    v = tf.Variable(np.ones((64, 64), np.float32))
    resource = v.handle._value
    before = _address(resource.value)
    v.assign_add(np.full((64, 64), 0.25, np.float32))
    assert _address(resource.value) != before


def test_a_copied_resource_shares_no_probe(loops):
    """Two resources sharing a probe would each see one reference too many on it: a copy gets its own."""
    import copy
    resource = S.VariableResource(np.ones((64, 64), np.float32), np.dtype(np.float32), (64, 64), "v", 0)
    _update(resource, np.float32(0.5), np.ones((64, 64), np.float32))
    assert resource.probe is not None
    for twin in (copy.copy(resource), copy.deepcopy(resource)):
        assert twin.probe is None and twin.lock is not resource.lock
    twin = copy.copy(resource)           # shares the array: neither may write it now
    _update(twin, np.float32(0.5), np.ones((64, 64), np.float32))
    np.testing.assert_array_equal(resource.value, 0.5)
    np.testing.assert_array_equal(twin.value, 0.0)


def test_generated_code_runs_the_fused_update():
    """With the code generator asking run_all for update fusion: one kernel call per update, no Mul."""
    v = tf.Variable(np.ones((3, 4), np.float32))

    @tf.function
    def step(g, lr):
        v.assign_sub(0.5 * g)
        v.assign_sub(g * lr)
        return lr

    source = step.get_concrete_function(tf.TensorSpec([3, 4], tf.float32),
                                        tf.TensorSpec([], tf.float32)).generated_source()
    assert source.count("k_ResourceApplyGradientDescent(") == 2
    assert "k_Mul(" not in source and "k_AssignSubVariableOp(" not in source
    assert "update fusion: 2 rewrites" in passes.explain(step.get_concrete_function(
        tf.TensorSpec([3, 4], tf.float32), tf.TensorSpec([], tf.float32)))
    step(tf.ones([3, 4]), tf.constant(0.25))
    step(tf.ones([3, 4]), tf.constant(0.25))
    np.testing.assert_array_equal(v.numpy(), 1 - 2 * 0.75)
