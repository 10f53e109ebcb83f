"""The compiled kernels for small float32 inputs (tanh, the total of up to 8192 values, the packet loops
of exp and log), built in the background once an op is hot on small inputs (`jit.HotOnSmall`):
bit for bit the NumPy forms' values (which are TensorFlow 2.21's) on ordinary, tiny, subnormal,
signed-zero, infinite, NaN and clamp-edge values, for every layout the callers hand them; when the build
starts; and that a fresh program's small ops never import numba."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.math import eigen_float, eigen_sum

FIXTURES = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "eigen_float.npz"))
F32 = np.float32


def bits(a):
    return np.asarray(a, F32).view(np.uint32)


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == F32 and want.dtype == F32 and got.shape == want.shape and \
        np.array_equal(bits(got), bits(want))


@pytest.fixture(scope="module")
def kernels():
    pytest.importorskip("numba")
    tanh, total = eigen_float._SMALL_TANH.build_now(), eigen_sum._SMALL_TOTAL.build_now()
    assert tanh is not None and total is not None
    return tanh, total


@pytest.fixture
def numpy_forms(monkeypatch):
    """Within the test: no small kernel (as before the build, or without numba), and no build started."""
    for hot in (eigen_float._SMALL_TANH, eigen_sum._SMALL_TOTAL):
        monkeypatch.setattr(hot, "kernel", None)
        monkeypatch.setattr(hot, "started", True)


NAN_BITS = np.array([0xFFC00000, 0x7FC00000, 0xFFFFFFFF, 0x7FC00001, 0xFFC00123, 0x7F800001, 0xFF800001],
                    np.uint32).view(F32)     # quiet and signalling NaNs of both signs, with payloads


def edge_values():
    """Values at every edge of tanh's and the sum's forms, and random ones at many scales."""
    tiny = [2.0 ** -40, 2.0 ** -41, 2.0 ** -40 * 0.99, 1.2e-38, 1.17549435e-38, 1.1754942e-38, 1e-40, 1e-45,
            2.0 ** -126, 2.0 ** -149, 3e-13, 2.5e-7, 1e-20]
    clamp = float(F32(7.90738964080810547))
    near_clamp = [clamp, float(np.nextafter(F32(clamp), F32(0))), float(np.nextafter(F32(clamp), F32(9)))]
    special = [0.0, np.inf, np.nan, 3.4028235e38, 1e30, 20.0, 9.0, 8.0, 0.5, 1.0, 4.0]
    magnitudes = tiny + near_clamp + special
    rs = np.random.RandomState(1)
    random = np.concatenate([rs.standard_normal(4000) * s for s in (1e-30, 1e-6, 0.01, 1.0, 3.0, 10.0, 1e6)])
    edges = np.array(magnitudes + [-v for v in magnitudes], F32)
    return np.concatenate([edges, NAN_BITS, random.astype(F32), FIXTURES["x"]])


def unaligned(values):
    """A float32 vector at an odd address."""
    raw = np.zeros(values.size * 4 + 1, np.uint8)
    x = np.frombuffer(raw.data, F32, values.size, offset=1)
    raw[1:] = values.view(np.uint8)
    assert not x.flags.aligned
    return x


def tanh_array_form(x):
    with np.errstate(all="ignore"):
        flat = x.reshape(-1)
        return eigen_float._ftz(eigen_float._tanh_all(eigen_float._daz(flat))).reshape(x.shape)


def test_tanh_kernel_gives_the_array_forms_bits_on_every_edge(kernels):
    values = edge_values()
    out = np.empty_like(values)
    kernels[0](values, out)
    assert np.array_equal(bits(out), bits(tanh_array_form(values)))
    assert same_bits(eigen_float.tanh(FIXTURES["x"]), FIXTURES["tanh"])     # TensorFlow's recorded bits


def test_tanh_with_and_without_the_kernel_agree_for_every_small_size_and_layout(kernels, monkeypatch):
    values = edge_values()
    rs = np.random.RandomState(2)
    cases = [values[:0], values[:1].reshape(()), values[:12].reshape(3, 4), values[:60].reshape(3, 4, 5),
             values[::3][:40], values[200:100:-2], values[:64].reshape(8, 8).T, values[:64].reshape(8, 8)[:, 1]]
    for size in list(range(1, 70)) + [100, 1000, 8192]:
        cases.append(rs.choice(values, size))
    readonly = values[:33].copy()
    readonly.flags.writeable = False
    cases.append(readonly)
    cases.append(unaligned(values[:21]))
    for x in cases:
        monkeypatch.setattr(eigen_float._SMALL_TANH, "kernel", None)
        want = eigen_float.tanh(x)
        monkeypatch.setattr(eigen_float._SMALL_TANH, "kernel", kernels[0])
        got = eigen_float.tanh(x)
        assert same_bits(got, want) and same_bits(got, tanh_array_form(np.array(x)))


def test_tanh_kernel_leaves_other_dtypes_and_byte_orders_to_numpy(kernels):
    x = np.linspace(-3, 3, 11)
    np.testing.assert_array_equal(tf.math.tanh(x).numpy(), np.tanh(x))
    np.testing.assert_array_equal(tf.math.tanh(x.astype(np.float16)).numpy(), np.tanh(x.astype(np.float16)))
    swapped = FIXTURES["x"][:20].astype(">f4")
    assert np.array_equal(bits(eigen_float.tanh(swapped).astype(F32)), bits(FIXTURES["tanh"][:20]))


@pytest.mark.parametrize("name", ["exp", "log"])
def test_small_packet_loops_give_the_numpy_forms_bits(name, monkeypatch):
    pytest.importorskip("numba")
    hot = eigen_float._SMALL_LOOPS[name]
    kernel = hot.build_now()
    assert kernel is not None
    fn = getattr(eigen_float, name)
    values = edge_values()
    if name == "log":
        with np.errstate(invalid="ignore"):     # the NaNs among the values
            values = np.concatenate([values, np.abs(values), np.float32(np.exp(-90)) * np.abs(values[:500])])
    rs = np.random.RandomState(5)
    cases = [values, unaligned(values[:100]), values[:64].reshape(8, 8).T, values[3:40].reshape(1, 37),
             np.concatenate([NAN_BITS, NAN_BITS, NAN_BITS, [F32(1.5)] * 11])]
    cases += [rs.choice(values, size) for size in list(range(1, 80)) + [128, 1000]]
    monkeypatch.setattr(eigen_float, "_compiled", lambda name, size: None)
    for x in cases:
        monkeypatch.setattr(hot, "kernel", None)
        want = fn(x)
        rows = eigen_float.exp_by_rows(np.atleast_2d(x)) if name == "exp" else None
        monkeypatch.setattr(hot, "kernel", kernel)
        assert same_bits(fn(x), want), x.shape
        if name == "exp":
            assert same_bits(eigen_float.exp_by_rows(np.atleast_2d(x)), rows)
    monkeypatch.setattr(hot, "kernel", kernel)
    fixture_input = FIXTURES["log_input"] if name == "log" else FIXTURES["x"]
    got, want = fn(fixture_input), FIXTURES[name]    # TensorFlow's recorded bits (any NaN where it has one)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan) and np.array_equal(bits(got[~nan]), bits(want[~nan]))


def leaf_numpy_form(x):
    with np.errstate(all="ignore"):
        return eigen_sum._leaf_rows_numpy(np.ascontiguousarray(x).reshape(1, -1))[0]


def test_sum_kernel_gives_the_numpy_forms_bits_at_every_size_up_to_a_leaf(kernels):
    rs = np.random.RandomState(3)
    values = edge_values()
    finite = values[np.isfinite(values)]
    sizes = list(range(0, 300)) + [511, 512, 513, 1000, 1023, 1024, 4097, 8191, 8192]
    for size in sizes:
        for draw in (rs.standard_normal(size) * 1e3, rs.choice(finite, size),
                     rs.choice([0.0, -0.0, 1e-40, -1e-45, 1.0, -1.0], size),
                     rs.standard_normal(size) * np.exp(rs.uniform(-20, 20, size))):
            x = draw.astype(F32)
            assert bits(kernels[1](x)) == bits(leaf_numpy_form(x)), size
    for special in ([np.inf, 1.0], [np.inf, -np.inf], [np.nan, 1.0], [-0.0] * 9, [-0.0] * 3, [3.4e38] * 16):
        x = np.array(special * 3, F32)
        assert bits(kernels[1](x)) == bits(leaf_numpy_form(x))


def test_reduce_sum_with_and_without_the_kernel_agree(kernels, monkeypatch):
    rs = np.random.RandomState(4)
    base = (rs.standard_normal(9000) * np.exp(rs.uniform(-8, 8, 9000))).astype(F32)
    cases = [(base[:0], None), (base[:1].reshape(()), None), (base[:5], None), (base[:5], (0,)),
             (base[:40].reshape(5, 8), None), (base[:40].reshape(5, 8), (0, 1)), (base[:40].reshape(5, 8), (1,)),
             (base[:60].reshape(3, 4, 5), None), (base[::2][:300], None), (base[500:100:-3], None),
             (base[:64].reshape(8, 8).T, None), (base[:8192], None), (base[:8193], None),
             (unaligned(base[:77]), None), (np.broadcast_to(base[:1], (40,)), None)]
    cases += [(base[:n], None) for n in range(1, 70)]
    for x, axes in cases:
        for keepdims in (False, True):
            monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", None)
            want = eigen_sum.reduce_sum(x, axes, keepdims)
            monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", kernels[1])
            got = eigen_sum.reduce_sum(x, axes, keepdims)
            assert isinstance(got, (np.ndarray, np.generic)) and same_bits(got, want), (x.shape, axes)
            monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", None)
            assert same_bits(eigen_sum.reduce_mean(x, axes, keepdims), eigen_sum.reduce_mean(x, axes, keepdims))


def _tanh_loop():
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    x = tf.constant([0.61853385, 0.565122664, 0.620023966, 0.718450546, 0.70036608], dtype=tf.float32) * 5
    return f, x


def test_eager_traced_and_compiled_loops_agree_with_and_without_the_kernels(kernels, monkeypatch):
    f, x = _tanh_loop()
    monkeypatch.setattr(eigen_float._SMALL_TANH, "kernel", None)
    monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", None)
    want = f(x).numpy()
    assert same_bits(tf.function(f, jit_compile=False)(x).numpy(), want)
    monkeypatch.setattr(eigen_float._SMALL_TANH, "kernel", kernels[0])
    monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", kernels[1])
    assert same_bits(f(x).numpy(), want)
    assert same_bits(tf.function(f, jit_compile=False)(x).numpy(), want)
    assert same_bits(tf.function(f, jit_compile=True)(x).numpy(), want)


def test_numpy_forms_serve_until_the_kernels_are_built(numpy_forms):
    f, x = _tanh_loop()
    g = tf.function(f, jit_compile=False)
    assert same_bits(g(x).numpy(), f(x).numpy())
    assert eigen_float._SMALL_TANH.kernel is None and eigen_sum._SMALL_TOTAL.kernel is None


class _RecordedStarts(jit.HotOnSmall):
    __slots__ = ("starts",)

    def _start(self):
        self.starts += 1


def test_the_build_starts_after_enough_small_calls(monkeypatch):
    hot = _RecordedStarts("test_small_kernel", lambda numba: "kernel", after=3, after_cold=6)
    for loaded, wanted in ((True, 3), (False, 6)):
        monkeypatch.setattr(jit, "sys", type("S", (), {"modules": {"numba": None} if loaded else {}})())
        hot.calls, hot.started, hot.starts = 0, False, 0
        for call in range(1, 10):
            hot.count()
            assert hot.starts == (0 if call < wanted else 1), (loaded, call)


def test_failed_or_missing_numba_builds_leave_the_numpy_forms(monkeypatch):
    def broken(numba):
        raise RuntimeError("no compiler")
    hot = jit.HotOnSmall("test_small_kernel_broken", broken)
    assert hot.build_now() is None and hot.kernel is None
    assert hot.build_now() is None           # never retried
    monkeypatch.setattr(jit, "numba_or_none", lambda: None)
    assert jit.HotOnSmall("test_small_kernel_missing", lambda numba: "kernel").build_now() is None


def _run(code, tmp_path):
    script = tmp_path / "loop.py"      # AutoGraph reads the loop's source from a file
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.getcwd(), env.get("PYTHONPATH")] if p)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


LOOP = """
    import sys, time
    import tensorflux as tf
    from tensorflux._src.ops.math import eigen_float, eigen_sum
    {prelude}
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    g = tf.function(f, jit_compile=False)
    x = tf.constant([0.61853385, 0.565122664, 0.620023966, 0.718450546, 0.70036608], dtype=tf.float32) * 5
    first = g(x).numpy().view("uint32").tolist()
    for _ in range(60):     # 2,200 small tanh calls and 2,300 small sums
        g(x)
    deadline = time.monotonic() + 240
    while {wait} and (eigen_float._SMALL_TANH.kernel is None or eigen_sum._SMALL_TOTAL.kernel is None):
        assert time.monotonic() < deadline
        g(x)
    assert g(x).numpy().view("uint32").tolist() == first
    print("numba" in sys.modules, eigen_float._SMALL_TANH.kernel is not None)
"""


def test_a_fresh_programs_small_ops_never_import_numba(tmp_path):
    assert _run(LOOP.format(prelude="", wait="False"), tmp_path) == ["False", "False"]


def test_with_numba_loaded_the_kernels_arrive_and_give_the_same_bits(tmp_path):
    pytest.importorskip("numba")
    assert _run(LOOP.format(prelude="import numba", wait="True"), tmp_path) == ["True", "True"]
