"""Helpers shared by the test suite: finite differences, gradient checks, array checks, tracing."""
import numpy as np

import tensorflux as tf


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar function `f` (float64 numpy -> float) at `x`."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check(t, expected, dtype=None):
    """`t` is a tensor equal to `expected` (same shape, and `dtype` when given)."""
    expected = np.asarray(expected)
    assert isinstance(t, tf.Tensor)
    assert t.shape == expected.shape
    if dtype is not None:
        assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), expected)


def random_weights(shape, seed):
    """Weights in [-1.5, 1.5) that turn an op's output into a scalar loss touching every element."""
    return tf.constant(np.random.default_rng(seed).uniform(-1.5, 1.5, size=shape))


def tape_gradients(fn, xs, weights):
    """d sum(fn(*xs) * weights) / d xs, with a GradientTape (eager, or inside a tf.function trace)."""
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = tf.reduce_sum(fn(*xs) * weights)
    # A gather's gradient is an IndexedSlices (as in TensorFlow): compared densified.
    return [None if g is None else tf.convert_to_tensor(g) for g in tape.gradient(loss, list(xs))]


def check_gradients(fn, arrays, seed=0, rtol=1e-6, atol=1e-7, wrt=None):
    """Eager tape gradients of sum(fn(*xs) * w) (w random) against central finite differences, then the
    same gradients traced in a tf.function against the eager ones. Returns the eager gradients.

    `wrt`: indices of the arrays to check against finite differences (default: all).
    """
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = random_weights(out.shape.as_list(), seed)
    eager = tape_gradients(fn, [tf.constant(a) for a in arrays], weights)
    for k in range(len(arrays)) if wrt is None else wrt:
        def scalar(value, k=k):
            args = [tf.constant(value if j == k else b) for j, b in enumerate(arrays)]
            return float(np.sum(fn(*args).numpy() * weights.numpy()))
        assert eager[k] is not None, f"no gradient for input {k}"
        assert eager[k].dtype == tf.float64 and eager[k].shape == arrays[k].shape
        np.testing.assert_allclose(eager[k].numpy(), numeric_grad(scalar, arrays[k]), rtol=rtol, atol=atol)
    graph = tf.function(lambda *xs: tape_gradients(fn, xs, weights))(*[tf.constant(a) for a in arrays])
    for e, g in zip(eager, graph):
        if e is None:
            assert g is None
        else:
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)
    return eager


def traced(fn, *args):
    """`fn` run inside a tf.function on the same arguments (the graph path of every op it calls)."""
    return tf.function(fn)(*args)


def static_shape(fn, *specs):
    """The static output shape(s) `fn` gets when traced for `specs` (None for unknown rank)."""
    out = tf.function(fn, input_signature=list(specs)).get_concrete_function().structured_outputs

    def dims(t):
        return t.shape.as_list() if t.shape.rank is not None else None
    return [dims(t) for t in out] if isinstance(out, list) else dims(out)


def array_address(array):
    """Where an array's data starts: equal before and after an update means it was written in place."""
    return array.__array_interface__["data"][0]


def race_updates_with_reads(v, update, g, updates):
    """Runs `update(g)` on a thread while another reads `v`'s array and checks, while computing with the read
    (NumPy releases the GIL), that every element keeps the value it had: no read ever sees a half-written
    update. Returns (updates made, counting the `updates` already made; how many were written in place)."""
    import threading
    failures, reads = [], [0]
    done = threading.Event()
    scratch = np.ones(1 << 16, np.float32)

    def reader():
        while not done.is_set():
            a = v.read_value()._value       # the variable's array itself (numpy() would copy it)
            first = a.reshape(-1)[0]
            for _ in range(3):
                if not (a == first).all() or np.add.reduce(a, axis=None) != first * a.size:
                    failures.append(first)
            reads[0] += 1
            del a                           # holding nothing now: updates meanwhile may go through the buffer
            np.add.reduce(scratch)

    thread = threading.Thread(target=reader)
    thread.start()
    in_place = 0
    resource = v.handle._value
    try:
        while updates < 1000 or reads[0] < 50 and updates < 200_000:   # both threads get their turns
            before = array_address(resource.value)
            update(g)
            in_place += array_address(resource.value) == before
            updates += 1
    finally:
        done.set()
        thread.join()
    assert not failures and reads[0] >= 50
    return updates, in_place
