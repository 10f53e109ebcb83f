"""ResourceApplyGradientDescent (ops/state.py): var -= alpha * delta.

Values: exactly NumPy's `np.subtract(v, np.multiply(alpha, delta))`, which is what a Mul and an
AssignSubVariableOp give, in every dtype TensorFlow's CPU kernel takes, NaN payloads, infinities, signed
zeros and subnormals included, on the NumPy form and in the compiled in-place loop. Errors: TensorFlow
2.21's, recorded from `tf.raw_ops.ResourceApplyGradientDescent` (eager: "alpha is not a scalar: [2]",
"var and delta do not have the same shape[3] [2]", no kernel for int32; traced: the rank-0 ValueError and
the alpha/delta TypeError). TensorFlow aborts the process on a var/delta dtype mismatch; tensorflux
raises the assign's InvalidArgumentError.
"""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.ops import state as S
from tensorflux._src.types import dtypes as _dt

_F32 = np.dtype(np.float32)


def _words(a):
    """The raw bits of an array (NaN payloads and signs of zero included)."""
    a = np.asarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" or a.dtype.name == "bfloat16" \
        else a.view(np.uint64) if a.dtype.kind == "c" else a


def _special(dtype, n, seed):
    """Random values of `dtype` with NaNs of random payloads, infinities, signed zeros and subnormals."""
    rs = np.random.RandomState(seed)
    if dtype in (np.float32, np.float64):
        words = rs.randint(0, 256, size=n * np.dtype(dtype).itemsize).astype(np.uint8)
        x = words.view(dtype).copy()     # every bit pattern: NaNs of any payload and sign, subnormals
        x[: n // 2] = (rs.randn(n // 2) * 10.0 ** rs.randint(-8, 8, n // 2)).astype(dtype)
        x[:8] = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-310, 3.0], np.float64).astype(dtype)
        return x
    x = (rs.randn(n) * 10.0 ** rs.randint(-3, 3, n)).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-6]
    if np.dtype(dtype).kind == "c":
        return (x + 1j * x[::-1]).astype(dtype)
    return x.astype(dtype)


def _resource(value):
    return S.VariableResource(value, value.dtype, value.shape, "v", 0)


@pytest.mark.parametrize("dtype", [np.float16, _dt.bfloat16._np, np.float32, np.float64, np.complex64,
                                   np.complex128])
@pytest.mark.parametrize("delta_first", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_the_numpy_form_gives_the_mul_and_assign_subs_bits(dtype, delta_first):
    dtype = np.dtype(dtype).type
    old, delta = _special(dtype, 4096, 1).reshape(64, 64), _special(dtype, 4096, 2).reshape(64, 64)
    for alpha in [dtype(0.01), dtype(-3.0), dtype(0.0), dtype(np.inf), dtype(np.nan)]:
        product = np.multiply(delta, alpha) if delta_first else np.multiply(alpha, delta)
        expected = np.subtract(old, product)
        resource = _resource(old.copy())
        S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta, _delta_first=delta_first, _assign_sub=True)
        np.testing.assert_array_equal(_words(resource.value), _words(expected))


def test_eager_call_updates_the_variable_and_returns_none():
    v = tf.Variable([1.0, 2.0, 3.0])
    assert S.resource_apply_gradient_descent(v.handle, 0.5, [1.0, 1.0, 1.0]) is None
    np.testing.assert_array_equal(v.numpy(), [0.5, 1.5, 2.5])
    S.resource_apply_gradient_descent(v.handle, tf.constant(0.5), tf.constant([2.0, 2.0, 2.0]), use_locking=True)
    np.testing.assert_array_equal(v.numpy(), [-0.5, 0.5, 1.5])


def test_in_a_graph_it_is_an_operation_without_outputs():
    v = tf.Variable([1.0, 2.0, 3.0])
    seen = []

    @tf.function
    def f(a, d):
        seen.append(S.resource_apply_gradient_descent(v.handle, a, d))

    f(tf.constant(1.0), tf.constant([1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 2.0])
    op = seen[0]
    assert op.type == "ResourceApplyGradientDescent" and op.outputs == [] and op.attrs == {"use_locking": False}
    f(tf.constant(1.0), tf.constant([1.0, 1.0, 1.0]))     # the compiled form (second call)
    np.testing.assert_array_equal(v.numpy(), [-1.0, 0.0, 1.0])


@pytest.mark.parametrize("alpha, delta, message", [
    ([0.5, 0.5], [1.0, 1.0, 1.0], "alpha is not a scalar: [2]"),
    (0.5, [1.0, 1.0], "var and delta do not have the same shape[3] [2]"),
    (0.5, [[1.0, 1.0, 1.0]], "var and delta do not have the same shape[3] [1,3]"),
])
def test_tensorflows_eager_errors(alpha, delta, message):
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        S.resource_apply_gradient_descent(v.handle, alpha, delta)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_integer_variables_have_no_kernel():
    v = tf.Variable([1, 2, 3])
    with pytest.raises(errors.InvalidArgumentError, match="No OpKernel was registered to support Op "
                                                          "'ResourceApplyGradientDescent'.*T=DT_INT32"):
        S.resource_apply_gradient_descent(v.handle, 1, [1, 1, 1])


def test_a_delta_of_another_dtype_than_the_variable_is_refused():
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="wrong dtype"):
        S.resource_apply_gradient_descent(v.handle, tf.constant(1.0, tf.float64), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_tensorflows_trace_time_errors():
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(a, d):
        S.resource_apply_gradient_descent(v.handle, a, d)

    with pytest.raises(ValueError, match=r"Shape must be rank 0 but is rank 1 for '\{\{node "
                                         r"ResourceApplyGradientDescent\}\} = ResourceApplyGradientDescent\["
                                         r"T=DT_FLOAT, use_locking=false\]' with input shapes: \[\], \[2\], \[3\]"):
        f.get_concrete_function(tf.TensorSpec([2], tf.float32), tf.TensorSpec([3], tf.float32))
    with pytest.raises(TypeError, match="Input 'delta' of 'ResourceApplyGradientDescent' Op has type float32 "
                                        "that does not match type float64 of argument 'alpha'."):
        S.APPLY_GRADIENT_DESCENT.infer(
            [tf.TensorSpec([], tf.resource), tf.TensorSpec([], tf.float64), tf.TensorSpec([3], tf.float32)], {})


# -- the compiled in-place loop ----------------------------------------------------------------------

@pytest.fixture
def loops():
    pytest.importorskip("numba")
    built = {}
    for dtype in (np.float32, np.float64):
        for ndim in (1, 2):
            loop = S.IN_PLACE_LOOPS[(np.dtype(dtype), ndim)]
            loop.hot.build_now()
            assert loop.ready, "the loop's build or its reference-count check failed"
            built[(np.dtype(dtype), ndim)] = loop
    return built


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_the_in_place_loop_gives_numpys_bits(loops, dtype):
    old, delta = _special(dtype, 1 << 14, 3), _special(dtype, 1 << 14, 4)
    rs = np.random.RandomState(5)
    tiny = np.finfo(dtype).tiny
    alphas = [dtype(0.01), dtype(-0.0), dtype(0.0), dtype(np.inf), dtype(-np.inf), dtype(tiny / 4),
              dtype(1.0 + np.finfo(dtype).eps), *(dtype(a) for a in rs.randn(8))]
    for alpha in alphas + [dtype(np.nan)]:
        for shape in [(1 << 14,), (128, 128)]:
            resource = _resource(old.reshape(shape).copy())
            held = resource.value.__array_interface__["data"][0]
            S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta.reshape(shape), _assign_sub=True)
            expected = np.subtract(old, np.multiply(alpha, delta)).reshape(shape)
            np.testing.assert_array_equal(_words(resource.value), _words(expected))
            # through the buffer, except for a NaN alpha (the NumPy form, for its operand order)
            assert (resource.value.__array_interface__["data"][0] == held) == (alpha == alpha)


def test_the_in_place_loop_rounds_each_product(loops):
    # a * a = 1 + 2**-22 + 2**-46 exactly, 1 + 2**-22 rounded to float32. From v = 1 + 2**-22 the rounded
    # product leaves exactly 0; a fused multiply-add would leave -2**-46.
    a = np.float32(1 + 2 ** -23)
    for shape in [(16,), (4, 4)]:
        resource = _resource(np.full(shape, 1 + 2 ** -22, np.float32))
        S.APPLY_GRADIENT_DESCENT.kernel(resource, a, np.full(shape, a, np.float32))
        assert (_words(resource.value) == 0).all()


def test_shapes_dtypes_and_layouts_the_loop_does_not_take_use_the_numpy_form(loops):
    delta = np.arange(12, dtype=np.float32).reshape(3, 4)
    alpha = np.float32(0.5)
    for value in [np.ones((4, 3), np.float32).T,                # not C-contiguous
                  np.ones((2, 3, 4), np.float32)[0],            # a view: owndata is False
                  np.ones((3, 4, 1, 1, 1), np.float32).reshape(3, 4)]:   # a view again
        base = value if value.base is None else value.base
        before = base.copy()
        resource = _resource(value)
        S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta)
        np.testing.assert_array_equal(base, before)
        np.testing.assert_array_equal(resource.value, np.subtract(value, np.multiply(alpha, delta)))
    frozen = np.ones((3, 4), np.float32)
    frozen.flags.writeable = False
    resource = _resource(frozen)
    S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta)
    assert (frozen == 1).all() and resource.value is not frozen
    resource = _resource(np.ones((3, 4), np.float32))
    S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, np.asfortranarray(delta))   # a delta not C-contiguous
    np.testing.assert_array_equal(resource.value, 1 - 0.5 * delta)


def test_alpha_as_a_zero_dimensional_array_or_a_variables_value(loops):
    """A learning rate read from a variable or passed in arrives as a 0-d array, not a NumPy scalar."""
    delta = _special(np.float32, 256, 6)
    old = _special(np.float32, 256, 7)
    for alpha in (np.array(0.01, np.float32), np.array(-2.5, np.float32)):
        resource = _resource(old.copy())
        held = resource.value.__array_interface__["data"][0]
        S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta)
        np.testing.assert_array_equal(_words(resource.value), _words(np.subtract(old, np.multiply(alpha, delta))))
        assert resource.value.__array_interface__["data"][0] == held
    lr = tf.Variable(0.125)
    v = tf.Variable(old)

    @tf.function
    def step(g):
        v.assign_sub(lr * g)

    for _ in range(3):
        step(tf.constant(delta))
    expected = old
    for _ in range(3):
        expected = np.subtract(expected, np.multiply(np.float32(0.125), delta))
    np.testing.assert_array_equal(_words(v.numpy()), _words(expected))


def _nans(rs, n, dtype):
    """NaNs of random payloads and signs (quiet and signalling)."""
    u = np.dtype(f"u{np.dtype(dtype).itemsize}").type
    bits, mant = 8 * np.dtype(dtype).itemsize, np.finfo(dtype).nmant
    w = rs.randint(0, 2 ** 62, n, dtype=np.int64).astype(u) & u((1 << mant) - 1)
    w |= u(((1 << (bits - mant - 1)) - 1) << mant) | (rs.randint(0, 2, n).astype(u) << u(bits - 1))
    w[w & u((1 << mant) - 1) == 0] |= u(1)
    return w.view(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_two_nans_give_numpys_nan_at_every_length(loops, dtype):
    """Where both operands are NaNs, NumPy's loops pick one by operand order, the same at every length for
    a subtraction and a product by a non-NaN alpha: so do the compiled loops (fused and AssignSub)."""
    for table in (S.SUB_LOOPS,):
        table[(np.dtype(dtype), 1)].hot.build_now()
    rs = np.random.RandomState(8)
    for n in list(range(1, 40)) + [127, 128, 129, 1000, 1001, 4095, 4096, 4097, 65536, 100003]:
        old, delta = _nans(rs, n, dtype), _nans(rs, n, dtype)
        old[::4] = 1.5
        delta[1::5] = 2.0
        for alpha in (dtype(0.5), dtype(-3.0), dtype(np.inf)):
            resource = _resource(old.copy())
            S.APPLY_GRADIENT_DESCENT.kernel(resource, alpha, delta)
            np.testing.assert_array_equal(_words(resource.value), _words(np.subtract(old, np.multiply(alpha, delta))))
        resource = _resource(old.copy())
        held = resource.value.__array_interface__["data"][0]
        S.ASSIGN_SUB_VARIABLE.kernel(resource, delta)
        np.testing.assert_array_equal(_words(resource.value), _words(np.subtract(old, delta)))
        assert resource.value.__array_interface__["data"][0] == held
