"""Mid-size products in two blocks of rows (blas_threads.two_row_blocks) give np.matmul's bits exactly,
and the per-shape timer picks the faster way, trying the slower one less and less often while it loses."""
import threading

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.linalg import blas_threads


def _period(dtype):
    blas_threads.usable_workers()          # starts the module: OpenBLAS's kernel set is read there
    period = blas_threads._state["row_period"].get(np.dtype(dtype).char)
    if period is None:
        pytest.skip("OpenBLAS runs kernels whose row period was not established (not Haswell)")
    return period


def _operands(rs, m, k, n, dtype, transpose_a, transpose_b):
    a = rs.randn(k, m).astype(dtype).T if transpose_a else rs.randn(m, k).astype(dtype)
    b = rs.randn(n, k).astype(dtype).T if transpose_b else rs.randn(k, n).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_blocks_give_the_unsplit_bits(dtype):
    period = _period(dtype)
    rs = np.random.RandomState(17)
    uint = np.uint32 if dtype == np.float32 else np.uint64
    shapes = [(60, 784, 128), (784, 60, 128), (2 * period, 3, 2), (2 * period + 1, 257, 33), (128, 128, 128)]
    shapes += [(int(rs.randint(2 * period, 900)), int(rs.randint(1, 1500)), int(rs.randint(2, 300)))
               for _ in range(60)]
    for i, (m, k, n) in enumerate(shapes):
        a, b = _operands(rs, m, k, n, dtype, i % 3 == 1, i % 4 == 2)
        got = blas_threads.two_row_blocks(a, b, period)
        want = np.matmul(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(uint), want.view(uint)), (m, k, n)


def test_a_cut_off_the_period_changes_bits_so_the_period_matters():
    # Guards the premise: were any cut bit-identical, the period would be doing nothing.
    period = _period(np.float32)
    rs = np.random.RandomState(3)
    a, b = _operands(rs, 60, 784, 128, np.float32, False, False)
    cut = period + period // 2
    split = np.concatenate([a[:cut] @ b, a[cut:] @ b])
    assert not np.array_equal(split, a @ b)
    assert np.array_equal(blas_threads.two_row_blocks(a, b, period), a @ b)


def _mid_key(a, b):
    return (a.shape[0], a.shape[1], b.shape[1], a.dtype.char)


@pytest.fixture
def spy(monkeypatch):
    """Counts the products _mid_product runs split."""
    calls = []
    real = blas_threads.two_row_blocks

    def counting(a, b, period):
        calls.append(period)
        return real(a, b, period)
    monkeypatch.setattr(blas_threads, "two_row_blocks", counting)
    monkeypatch.setattr(blas_threads, "_mid_times", {})
    # The timer's logic without the polling helper (test_gemm_spinner covers that one), which a product
    # elsewhere in the process may have built.
    monkeypatch.setattr(blas_threads, "_spinner", lambda: None)
    return calls


def test_one_slow_or_fast_call_does_not_change_the_way(spy):
    period = _period(np.float32)
    a, b = _operands(np.random.RandomState(0), 60, 784, 128, np.float32, False, False)
    blas_threads._mid_times[_mid_key(a, b)] = [[1e-4] * 5, [1e-3, 1e-3, 1e-3, 1e-3, 1e-9], 10 ** 6, 10 ** 6]
    blas_threads._mid_product(a, b, period)
    assert not spy
    blas_threads._mid_times[_mid_key(a, b)] = [[1e-4, 1e-4, 1e-4, 1e-4, 9.0], [2e-4] * 5, 10 ** 6, 10 ** 6]
    blas_threads._mid_product(a, b, period)
    assert not spy


def test_the_timer_takes_the_faster_way_and_backs_off_from_a_losing_split(spy):
    period = _period(np.float32)
    a, b = _operands(np.random.RandomState(0), 60, 784, 128, np.float32, False, False)
    key = _mid_key(a, b)
    want = a @ b
    blas_threads._mid_product(a, b, period)          # first: whole
    blas_threads._mid_product(a, b, period)          # second: split, to time it
    assert len(spy) == 1
    # A split that keeps losing (as when the other core is busy) is tried after 16, 32, 64... calls.
    times = blas_threads._mid_times[key]
    times[:] = [[1e-4] * 5, [1.0] * 5, blas_threads.MID_PROBE_EVERY, blas_threads.MID_PROBE_EVERY]
    probes = []
    for call in range(1, 16 + 32 + 64 + 1):
        before = len(spy)
        out = blas_threads._mid_product(a, b, period)
        assert np.array_equal(out, want)
        times[1] = [1.0] * 5                          # the split stays slow whatever this call measured
        if len(spy) > before:
            probes.append(call)
    assert probes == [16, 48, 112]
    # A split that is faster is taken on every call but the probes of the whole product (call 16, then 48).
    times[:] = [[1.0] * 5, [1e-4] * 5, blas_threads.MID_PROBE_EVERY, blas_threads.MID_PROBE_EVERY]
    spy.clear()
    for _ in range(32):
        blas_threads._mid_product(a, b, period)
        times[0] = [1.0] * 5
    assert len(spy) == 31


def test_matmul_op_gives_numpys_bits_either_way(spy):
    period = _period(np.float32)
    rs = np.random.RandomState(5)
    x = rs.rand(60, 784).astype(np.float32)
    w = (rs.randn(784, 128) * 0.05).astype(np.float32)
    want = np.matmul(x, w)
    outs = [tf.matmul(x, w).numpy() for _ in range(6)]
    key = (60, 784, 128, "f")
    blas_threads._mid_times[key][:2] = [[1.0] * 5, [1e-6] * 5]       # split from now on
    outs += [tf.matmul(x, w).numpy() for _ in range(6)]
    grad_want = np.matmul(x.T, np.ones((60, 128), np.float32))
    assert spy, "no product ran split"
    for out in outs:
        assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    xv = tf.constant(x)
    wv = tf.Variable(w)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.matmul(xv, wv))
    assert np.array_equal(tape.gradient(y, wv).numpy(), grad_want)
    assert period in spy


def test_a_product_inside_a_block_does_not_wait_for_itself(spy):
    # A block on the helper thread whose kernel runs a mid-size product split must not queue its second
    # block behind itself (the helper is busy running the block that waits).
    period = _period(np.float32)
    if blas_threads.usable_workers() < 2:
        pytest.skip("one core: no helper thread")
    a, b = _operands(np.random.RandomState(1), 60, 784, 128, np.float32, False, False)
    key = _mid_key(a, b)
    blas_threads._mid_times[key] = [[1.0], [1e-6], 10 ** 6, 10 ** 6]     # split, never probing
    results = [None, None]
    started = threading.Event()

    def block(i):
        if i == 1:
            started.set()
        results[i] = blas_threads.gemm(a, b)

    def run():
        blas_threads._run_blocks(block, 2)
    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=60)
    assert not runner.is_alive(), "a product inside a block waited for itself"
    assert started.is_set()
    for r in results:
        assert np.array_equal(r, a @ b)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork")
def test_a_forked_child_runs_split_products():
    import os
    import time
    period = _period(np.float32)
    a, b = _operands(np.random.RandomState(2), 60, 784, 128, np.float32, False, False)
    blas_threads.two_row_blocks(a, b, period)          # the parent's helper threads exist
    pid = os.fork()
    if pid == 0:                                        # child: the helpers were not copied
        try:
            ok = np.array_equal(blas_threads.two_row_blocks(a, b, period), a @ b)
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("a split product in a forked child waited for the parent's helper threads")
