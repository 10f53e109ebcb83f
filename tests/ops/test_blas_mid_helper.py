"""The mid-size product helper (blas_threads.two_row_blocks): every cut it may move to gives np.matmul's
bits, callers on several threads at once get their own products (the helper serves one; the others run
whole), and an error in a block reaches the caller and leaves the helper usable."""
import threading

import numpy as np
import pytest

from tensorflux._src.ops.linalg import blas_threads


def _period():
    blas_threads.usable_workers()
    period = blas_threads._state["row_period"].get("f")
    if period is None:
        pytest.skip("OpenBLAS runs kernels whose row period was not established (not Haswell)")
    return period


def test_every_cut_gives_the_unsplit_bits(monkeypatch):
    period = _period()
    monkeypatch.setattr(blas_threads, "_mid_cuts", {})
    rs = np.random.RandomState(4)
    for m, k, n, transposed in [(60, 784, 128, False), (784, 60, 128, True), (50, 300, 40, False), (26, 9, 3, True)]:
        a = rs.randn(k, m).astype(np.float32).T if transposed else rs.randn(m, k).astype(np.float32)
        b = rs.randn(k, n).astype(np.float32)
        want = np.matmul(a, b).view(np.uint32)
        key = (m, k, n, "f")
        for cut in range(period, m - 1, period):
            blas_threads._mid_cuts[key] = cut
            got = blas_threads.two_row_blocks(a, b, period)
            assert np.array_equal(got.view(np.uint32), want), (m, k, n, cut)
            assert period <= blas_threads._mid_cuts[key] <= m - 2     # moved at most to a valid cut
            assert blas_threads._mid_cuts[key] % period == 0


def test_callers_on_several_threads_get_their_own_products():
    period = _period()
    rs = np.random.RandomState(5)
    operands = [(rs.randn(60, 300).astype(np.float32), rs.randn(300, 64).astype(np.float32)) for _ in range(4)]
    wants = [np.matmul(a, b) for a, b in operands]
    bad = []

    def run(i):
        a, b = operands[i]
        for _ in range(50):
            if not np.array_equal(blas_threads.two_row_blocks(a, b, period), wants[i]):
                bad.append(i)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not bad


class _FailingRows(np.ndarray):
    """An operand whose products raise when its block has fewer than `fail_below` rows."""
    fail_below = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if any(isinstance(x, _FailingRows) and x.shape[0] < self.fail_below for x in inputs):
            raise ArithmeticError("block failed")
        inputs = tuple(x.view(np.ndarray) if isinstance(x, _FailingRows) else x for x in inputs)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, _FailingRows) else o for o in out)
        return getattr(ufunc, method)(*inputs, **kwargs)


@pytest.mark.parametrize("failing", ["helper", "both"])
def test_an_error_in_a_block_reaches_the_caller_and_the_helper_serves_on(monkeypatch, failing):
    period = _period()
    if blas_threads.usable_workers() < 2:
        pytest.skip("one core: no helper thread")
    monkeypatch.setattr(blas_threads, "_mid_cuts", {(60, 20, 8, "f"): 36})
    rs = np.random.RandomState(6)
    a, b = rs.randn(60, 20).astype(np.float32), rs.randn(20, 8).astype(np.float32)
    failing_a = a.view(_FailingRows)
    monkeypatch.setattr(_FailingRows, "fail_below", 30 if failing == "helper" else 61)   # the helper has 24
    with pytest.raises(ArithmeticError):
        blas_threads.two_row_blocks(failing_a, b, period)
    assert np.array_equal(blas_threads.two_row_blocks(a, b, period), a @ b)
    assert not blas_threads._mid_helper().busy.locked()
