"""A compiled kernel that is one large elementwise loop runs in blocks on the worker threads
(runtime/blocked_map.py, lowering.MapPlan): the same bits as the serial kernel and the NumPy path, on
every shape and dtype, with unknown dimensions, several outputs and mismatched inputs; the plan is made
only for loops of at least 2^20 elements that are the whole kernel; the outputs are the only arrays a
call allocates (tracemalloc, issue 17 item 5, for the compiled path).

Expected values are the NumPy path's own (the eager kernels, themselves tested against TensorFlow).
"""
import re
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.runtime import blocked_map, lowering

numba = pytest.importorskip("numba")

BIG = lowering.PARALLEL_MIN_ELEMENTS


@pytest.fixture(autouse=True, scope="module")
def private_cache(tmp_path_factory):
    """Kernels go to a fresh cache directory (never the user's ~/.cache)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path_factory.mktemp("jit")))
        yield


def _block_counts():
    """An object whose len() is the number of blocked calls made since (blocked_map.RUNS)."""
    class Calls:
        start = blocked_map.RUNS["blocks"]

        def __len__(self):
            return blocked_map.RUNS["blocks"] - self.start
    return Calls()


@pytest.fixture
def block_counts():
    return _block_counts()


def _needs_two_workers():
    if blas_threads.usable_workers() < 2:
        pytest.skip("one worker thread: the serial kernel runs")


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        # every bit but which NaN (x86 returns its first NaN operand, whichever order the code has)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        keep = ~np.isnan(a)
        np.testing.assert_array_equal(a[keep].view(f"u{a.itemsize}"), b[keep].view(f"u{b.itemsize}"))
    else:
        np.testing.assert_array_equal(a, b)


def _chain(x):
    y = x * 1.5
    y = y + 2.0
    y = y * y
    y = y - 1.0
    y = y / 3.0
    y = tf.abs(y)
    y = y + x
    y = y * 0.5
    y = tf.maximum(y, 0.1)
    return y - 0.01


def _values(shape, dtype, seed=0):
    """Values with NaN, infinities, signed zeros and the dtype's extremes among ordinary ones."""
    rng = np.random.RandomState(seed)
    if np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(shape) * 100).astype(dtype)
        flat = a.reshape(-1)
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, np.finfo(dtype).max, np.finfo(dtype).tiny],
                            dtype)
        flat[rng.randint(0, flat.size, 1000)] = specials[rng.randint(0, specials.size, 1000)]
        return a
    info = np.iinfo(dtype)
    return rng.randint(info.min, info.max, shape, dtype=np.int64).astype(dtype)


def _prefer(run, blocks):
    """Makes `run` take the blocks (or the serial kernel) on its next calls: its timer's means set so,
    the next probe far away."""
    run.times[:] = [1, None, -1.0, 10 ** 9, 10 ** 9] if blocks else [0, None, 1.0, 10 ** 9, 10 ** 9]


def _compiled(fn, *args, input_signature=None, blocks=True):
    """fn with jit_compile=True, compiled for `args`, its runner preferring blocks (or not)."""
    compiled = tf.function(fn, jit_compile=True, input_signature=input_signature)
    compiled(*args)
    run = compiled.get_concrete_function(*args)._fn
    assert run.lowered.map is not None and run.block is not None, run.lowered.source
    _prefer(run, blocks)
    return compiled, run


def _run_three_ways(fn, *args, input_signature=None):
    """(NumPy path, blocked compiled, serial compiled) results of `fn` on `args`."""
    plain = tf.function(fn, jit_compile=False, input_signature=input_signature)(*args)
    compiled, run = _compiled(fn, *args, input_signature=input_signature)
    blocked = compiled(*args)
    serial = run.serial(*[np.asarray(a) for a in args])
    return plain, blocked, serial


@pytest.mark.parametrize("shape", [(BIG,), (BIG + 7,), (4_000_000,), (3, 5, 69_907), (1024, 1025)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ten_op_chain_gives_the_same_bits_in_blocks(shape, dtype, block_counts):
    _needs_two_workers()
    x = tf.constant(_values(shape, dtype))
    plain, blocked, serial = _run_three_ways(_chain, x)
    _same_bits(blocked, plain)
    _same_bits(serial[0], plain)
    size = int(np.prod(shape))
    assert len(block_counts) == 1


def test_several_outputs_inputs_and_dtypes_in_blocks(block_counts):
    _needs_two_workers()

    def f(x, y, s, n):
        z = tf.where(x > y, x - y, y * s)
        w = tf.cast(z > 0.0, tf.float32) * tf.sqrt(tf.abs(z))
        k = (n * 3 + 7) % 5            # int32 wraps as TensorFlow's
        return z, w, tf.minimum(w, z), k, z > w
    shape = (BIG + 3,)
    x = tf.constant(_values(shape, np.float32, 1))
    y = tf.constant(_values(shape, np.float32, 2))
    s = tf.constant(np.float32(-0.5))
    n = tf.constant(_values(shape, np.int32, 3))
    plain, blocked, serial = _run_three_ways(f, x, y, s, n)
    for p, b, c in zip(plain, blocked, serial):
        _same_bits(b, p)
        _same_bits(c, p)
    assert len(block_counts) == 1


def test_unknown_dimensions_decide_per_call():
    _needs_two_workers()
    spec = [tf.TensorSpec([None], tf.float32)]
    small = tf.constant(_values((1000,), np.float32))
    big = tf.constant(_values((BIG + 1,), np.float32))
    compiled, _ = _compiled(_chain, big, input_signature=spec)
    plain = tf.function(_chain, jit_compile=False, input_signature=spec)
    block_counts = _block_counts()
    _same_bits(compiled(small), plain(small))
    assert len(block_counts) == 0      # under 2^20 elements: the serial kernel, no helper woken
    _same_bits(compiled(big), plain(big))
    assert len(block_counts) == 1


def test_mismatched_shapes_raise_as_the_numpy_path():
    spec = [tf.TensorSpec([None], tf.float32)] * 2

    def f(x, y):
        return x * y + 1.0
    compiled = tf.function(f, jit_compile=True, input_signature=spec)
    plain = tf.function(f, jit_compile=False, input_signature=spec)
    a = tf.constant(np.ones(BIG, np.float32))
    b = tf.constant(np.ones(BIG + 8, np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError) as expected:
        plain(a, b)
    with pytest.raises(tf.errors.InvalidArgumentError) as got:
        compiled(a, b)
    def last_lines(e):   # the function's counter and the caller's line differ
        return re.sub(r"_f_\d+", "_f", "\n".join(str(e.value).strip().splitlines()[-2:]))
    assert "Incompatible shapes" in last_lines(got) and last_lines(got) == last_lines(expected)


def test_a_strided_argument_takes_the_serial_path():
    x = _values((BIG,), np.float32)
    _, run = _compiled(_chain, tf.constant(x))
    strided = np.repeat(x, 2)[::2]
    assert not strided.flags.c_contiguous
    _same_bits(run(strided)[0], tf.function(_chain)(tf.constant(x)))


def _block_call(size, counters):
    """(block function, its arguments, the output slice) of the compiled 10-op chain on `size` floats."""
    x = tf.constant(_values((size,), np.float32))
    _, run = _compiled(_chain, x)
    out = np.full(size, np.float32(7.0))
    args = [x.numpy(), *run.lowered.constants, out, counters, -(-size // blocked_map.BLOCK), blocked_map.BLOCK]
    return run, args, out


def test_threads_calling_the_block_function_share_every_block_once():
    import threading
    size = 3 * BIG + 11
    counters = np.zeros(2, np.int64)
    run, args, out = _block_call(size, counters)
    blocks = args[-2]
    start = threading.Barrier(3)

    def call():
        start.wait()
        run.block(*args)
    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    call()
    for t in threads:
        t.join()
    # each thread's last claim finds none left; every block was finished once
    assert counters.tolist() == [blocks + 3, blocks]
    _same_bits(out, run.serial(args[0])[0])


def test_a_block_function_finding_every_block_claimed_writes_nothing():
    size = BIG
    counters = np.array([-(-size // blocked_map.BLOCK)] * 2, np.int64)
    run, args, out = _block_call(size, counters)
    run.block(*args)
    assert (out == 7.0).all() and counters[0] == args[-2] + 1


def test_a_withdrawn_share_never_calls_the_block_function():
    calls = []
    share = blocked_map._Share(lambda *a: calls.append(a), (1, 2))
    assert share.withdraw() is False       # not started: the caller did every block
    share()
    assert calls == [] and share.finished.locked()
    share = blocked_map._Share(lambda *a: calls.append(a), (1, 2))
    share()
    assert calls == [(1, 2)] and not share.finished.locked() and share.withdraw() is True


def test_the_faster_way_is_kept_and_the_other_probed_ever_less_often(block_counts):
    _needs_two_workers()
    x = tf.constant(_values((BIG,), np.float32))
    compiled, run = _compiled(_chain, x)
    start = len(block_counts)
    # serial far faster so far: blocks tried on the 3rd call, and one pair cannot outweigh that
    run.times[:] = [0, None, 1.0, 3, blocked_map.PROBE_EVERY]
    expected = compiled(x).numpy()
    compiled(x)
    assert len(block_counts) == start
    _same_bits(compiled(x), expected)
    assert len(block_counts) == start + 1
    assert run.times[0] == 0 and run.times[3:] == [2 * blocked_map.PROBE_EVERY] * 2   # half as often
    run.times[:] = [1, None, -1.0, 2, blocked_map.PROBE_MAX]     # blocks far faster: serial tried 2nd
    compiled(x)
    assert len(block_counts) == start + 2
    _same_bits(compiled(x), expected)
    assert len(block_counts) == start + 2
    assert run.times[0] == 1 and run.times[3:] == [blocked_map.PROBE_MAX] * 2
    run.times[:] = [0, None, 0.0, 2, 32]       # a tie so far: the pair decides, the loser is tried soon
    compiled(x)
    compiled(x)
    assert run.times[3:] in ([blocked_map.PROBE_EVERY] * 2, [min(64, blocked_map.PROBE_MAX)] * 2)
    assert (run.times[0] == 1) == (run.times[2] < 0)


def test_first_calls_time_both_ways(block_counts):
    _needs_two_workers()
    x = tf.constant(_values((BIG,), np.float32))
    compiled = tf.function(_chain, jit_compile=True)
    start = len(block_counts)
    compiled(x)                      # serial
    compiled(x)                      # in blocks, paired with the first call
    run = compiled.get_concrete_function(x)._fn
    assert len(block_counts) == start + 1 and run.times[2] is not None


def test_only_whole_kernels_of_large_loops_get_a_plan():
    def plan(fn, *args):
        cf = tf.function(fn).get_concrete_function(*args)
        return lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs)).map

    big = tf.constant(np.ones(BIG, np.float32))
    assert plan(_chain, big) is not None
    assert plan(_chain, tf.constant(np.ones(BIG - 1, np.float32))) is None     # under 2^20 elements
    assert plan(lambda x: _chain(x) + tf.reduce_sum(x), big) is None            # a reduction too
    assert plan(lambda x: (_chain(x), x), big) is None                          # an input returned
    assert plan(lambda x, s: _chain(x) * (s * 2.0), big, tf.constant(1.5)) is None   # scalar work first
    assert plan(lambda x, s: _chain(x) * s, big, tf.constant(1.5)) is not None
    assert plan(_chain, tf.TensorSpec([None, 3], tf.float32)) is not None       # size known per call


@pytest.mark.parametrize("blocks", [True, False])
def test_compiled_ten_op_chain_on_4m_floats_allocates_only_its_result(blocks):
    # Issue 17 item 5 for the compiled path: the peak beyond the input is the result alone (the NumPy
    # path's own bound, three tensors, is tested in test_interpret.py), in blocks or serially (numba
    # allocates through Python's raw allocator, which tracemalloc sees).
    _needs_two_workers()
    x = tf.constant(np.random.RandomState(0).rand(4_000_000).astype(np.float32))
    compiled, _ = _compiled(_chain, x, blocks=blocks)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        out = compiled(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    nbytes = x.numpy().nbytes
    assert nbytes <= peak - before < 1.1 * nbytes, (peak - before, nbytes)
    assert out.shape == x.shape


_BINARY = {"add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "max": tf.maximum, "min": tf.minimum,
           "where": lambda a, b: tf.where(a > b, a, b - a), "less": lambda a, b: tf.cast(a < b, a.dtype) * a}
_UNARY = {"neg": tf.negative, "abs": tf.abs, "square": tf.square}
_FLOAT_ONLY = {"div": (tf.divide, 2), "sqrt": (lambda a: tf.sqrt(tf.abs(a)), 1), "floor": (tf.floor, 1),
               "relu": (tf.nn.relu, 1)}


@st.composite
def programs(draw):
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int32]))
    if dtype == np.int32:
        elements = st.integers(-2 ** 31, 2 ** 31 - 1)
    else:
        elements = st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=True, allow_infinity=True)
    n = draw(st.integers(1, 40))
    x, y = (draw(hnp.arrays(dtype, n, elements=elements)) for _ in range(2))
    s = draw(hnp.arrays(dtype, (), elements=elements))
    names = sorted(_BINARY) + sorted(_UNARY) + (sorted(_FLOAT_ONLY) if dtype != np.int32 else [])
    steps = [(draw(st.sampled_from(names)), draw(st.integers(0, 2 + i)), draw(st.integers(0, 2 + i)))
             for i in range(draw(st.integers(2, 12)))]
    return dtype, x, y, s, steps


def _op(name):
    if name in _BINARY:
        return _BINARY[name], 2
    if name in _UNARY:
        return _UNARY[name], 1
    return _FLOAT_ONLY[name]


# No shrinking: every example compiles a kernel (seconds); a failure names its program in the message.
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(programs())
def test_random_elementwise_programs_give_the_same_bits_in_blocks(program):
    dtype, x, y, s, steps = program
    size = BIG + 5     # the drawn values repeated: blocks end mid-pattern, the tail block is short

    def f(x, y, s):
        values = [x, y, s]
        for name, i, j in steps:
            fn, arity = _op(name)
            a, b = values[i], values[j]
            if a.shape.rank == 0 and (arity == 1 or b.shape.rank == 0):
                a = a + x * 0        # an array value: the loop never computes from scalars only
            values.append(fn(a, b) if arity == 2 else fn(a))
        return values[-1], values[3]
    args = [tf.constant(np.resize(x, size)), tf.constant(np.resize(y, size)), tf.constant(s)]
    plain = tf.function(f, jit_compile=False)(*args)
    compiled = tf.function(f, jit_compile=True)
    got = compiled(*args)
    run = compiled.get_concrete_function(*args)._fn
    assert run.lowered.map is not None, (steps, run.lowered.source)
    for p, g in zip(plain, got):
        try:
            _same_bits(g, p)
        except AssertionError as e:
            raise AssertionError(f"program {dtype.__name__} {steps}: {e}") from None
