"""The polling helper of mid-size products (gemm_spinner, `[jit]`): its two row blocks, computed by the CBLAS
function NumPy calls, give np.matmul's bits for every operand layout it takes; the layouts it does not take
(NumPy would copy them, or run syrk) go the other way, exactly too; callers on several threads, a helper that
went to sleep, and a forked child all get their products."""
import os
import threading
import time

import numpy as np
import pytest

from tensorflux._src.ops import jit
from tensorflux._src.ops.linalg import blas_threads, gemm_spinner

pytest.importorskip("numba")


@pytest.fixture
def spinner(monkeypatch):
    blas_threads.usable_workers()
    if blas_threads._state["row_period"].get("f") is None:
        pytest.skip("OpenBLAS runs kernels whose row period was not established (not Haswell)")
    if blas_threads.usable_workers() < 2:
        pytest.skip("one core: products are not split")
    if jit.build_now(blas_threads._SPINNER_KEY, blas_threads._build_spinner) is None:
        pytest.skip("no ILP64 CBLAS symbols in NumPy's BLAS")
    helper = blas_threads._spinner()
    assert helper is not None
    used = []
    real = type(helper).two_blocks

    def counting(self, *args):
        done = real(self, *args)
        used.append(done)
        return done
    monkeypatch.setattr(type(helper), "two_blocks", counting)
    return helper, used


def _exact(got, want):
    uint = np.uint32 if want.dtype == np.float32 else np.uint64
    return got.dtype == want.dtype and np.array_equal(got.view(uint), want.view(uint))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_its_blocks_give_numpys_bits_in_every_layout(spinner, dtype):
    _, used = spinner
    period = blas_threads._state["row_period"][np.dtype(dtype).char]
    rs = np.random.RandomState(23)
    cases = [(60, 784, 128), (784, 60, 128), (2 * period, 5, 2), (2 * period + 1, 300, 17)]
    cases += [(int(rs.randint(2 * period, 500)), int(rs.randint(2, 1200)), int(rs.randint(2, 200))) for _ in range(40)]
    for i, (m, k, n) in enumerate(cases):
        layout = i % 4
        if layout == 0:       # both contiguous
            a, b = rs.randn(m, k).astype(dtype), rs.randn(k, n).astype(dtype)
        elif layout == 1:     # a transposed view (a weight gradient's xᵀ)
            a, b = rs.randn(k, m).astype(dtype).T, rs.randn(k, n).astype(dtype)
        elif layout == 2:     # b transposed, a with a leading dimension wider than its rows
            a, b = rs.randn(m, k + 7).astype(dtype)[:, 3:3 + k], rs.randn(n, k).astype(dtype).T
        else:                 # both transposed
            a, b = rs.randn(k, m).astype(dtype).T, rs.randn(n, k).astype(dtype).T
        got = blas_threads.two_row_blocks(a, b, period)
        assert _exact(got, np.matmul(a, b)), (m, k, n, layout)
    assert used and all(used), "the spinner did not compute the blocks"


def test_layouts_numpy_copies_or_runs_as_syrk_go_the_other_way(spinner):
    _, used = spinner
    rs = np.random.RandomState(5)
    strided = rs.randn(60, 2 * 300).astype(np.float32)[:, ::2]          # no unit stride: NumPy copies it
    b = rs.randn(300, 64).astype(np.float32)
    square = rs.randn(60, 200).astype(np.float32)
    for a, b2 in [(strided, b), (square, square.T)]:                    # a matrix by its own transpose: syrk
        got = blas_threads.two_row_blocks(a, b2, 12)
        assert _exact(got, np.matmul(a, b2))
    assert used == [False]          # the second never reached the spinner


def test_callers_on_several_threads_get_their_own_products(spinner):
    rs = np.random.RandomState(9)
    operands = [(rs.randn(60, 200 + 50 * i).astype(np.float32), rs.randn(200 + 50 * i, 40).astype(np.float32))
                for i in range(4)]
    wants = [np.matmul(a, b) for a, b in operands]
    bad = []

    def run(i):
        a, b = operands[i]
        for _ in range(100):
            if not _exact(blas_threads.two_row_blocks(a, b, 12), wants[i]):
                bad.append(i)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not bad


def test_a_helper_that_went_to_sleep_is_woken(spinner, monkeypatch):
    helper, used = spinner
    monkeypatch.setattr(gemm_spinner, "SPIN_POLLS", 10)
    rs = np.random.RandomState(4)
    a, b = rs.randn(60, 300).astype(np.float32), rs.randn(300, 50).astype(np.float32)
    want = np.matmul(a, b)
    for _ in range(5):
        assert _exact(blas_threads.two_row_blocks(a, b, 12), want)
        deadline = time.monotonic() + 10
        while helper.polling() and time.monotonic() < deadline:
            time.sleep(0.001)
        assert not helper.polling(), "the helper never stopped polling"
    assert len(used) == 5 and all(used)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_gets_a_helper_of_its_own(spinner):
    rs = np.random.RandomState(2)
    a, b = rs.randn(60, 784).astype(np.float32), rs.randn(784, 128).astype(np.float32)
    want = np.matmul(a, b)
    assert _exact(blas_threads.two_row_blocks(a, b, 12), want)
    pid = os.fork()
    if pid == 0:                      # the parent's helper thread was not copied
        try:
            ok = all(_exact(blas_threads.two_row_blocks(a, b, 12), want) for _ in range(3))
            os._exit(0 if ok and blas_threads._state["spinner"] is not None else 1)
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
    pytest.fail("a split product in a forked child waited for the parent's helper")
