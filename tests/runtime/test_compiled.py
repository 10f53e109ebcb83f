"""jit_compile=True, tiering and the numba kernels (runtime/lowering.py, runtime/tiering.py,
function/jit_compile.py): compiled values against the NumPy path's, TensorFlow's errors and words,
the background switch, the disk cache's trust rules and the kernels' allocations.

Expected values are the NumPy path's own (the eager kernels, themselves tested against TensorFlow);
TensorFlow's error texts were recorded from TensorFlow 2.21 (`jit_compile=True` of tf.strings.as_string,
`experimental_get_compiler_ir` on a function without jit_compile, a bad stage, both compile flags).
"""
import logging
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.function import jit_compile as jit_module
from tensorflux._src.runtime import lowering, tiering

numba = pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Kernels go to a fresh cache directory (never the user's ~/.cache)."""
    directory = tmp_path / "jit"
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(directory))
    return directory


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        # Every bit, except which NaN: the sign and payload of a NaN follow the operand order the machine
        # code happens to use (x86 returns its first NaN operand), in NumPy's loops as in numba's.
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        keep = ~np.isnan(a)
        np.testing.assert_array_equal(a[keep].view(f"u{a.itemsize}"), b[keep].view(f"u{b.itemsize}"))
    else:
        np.testing.assert_array_equal(a, b)


def _both(fn, *args):
    """(NumPy path result, compiled result, compiled concrete function) of `fn` on `args`."""
    plain = tf.function(fn, jit_compile=False)(*args)
    compiled = tf.function(fn, jit_compile=True)
    result = compiled(*args)
    cf = compiled.get_concrete_function(*args)
    assert hasattr(cf._fn, "kernel"), "the function did not run compiled"
    return plain, result, cf


def _chain(x):
    for _ in range(10):
        x = x * 1.0001
        x = x + 0.0001
    return x


def test_scalar_and_vector_chains_are_bit_equal():
    for x in (tf.constant(1.5), tf.constant(np.linspace(-3, 3, 1001, dtype=np.float32)),
              tf.constant(np.linspace(-3, 3, 24, dtype=np.float64).reshape(2, 3, 4))):
        plain, compiled, _ = _both(_chain, x)
        _same_bits(plain.numpy(), compiled.numpy())


def test_elementwise_ops_with_nan_inf_and_division_by_zero_are_bit_equal():
    def f(x, y):
        a = x / y                     # 1/0, 0/0
        b = tf.maximum(a, x) - tf.minimum(y, a)
        c = tf.where(x > y, tf.sqrt(tf.abs(a)), -b)
        d = tf.nn.relu(c) + tf.floor(a) * tf.math.ceil(y)
        return d, tf.cast(x < y, tf.float32) + tf.cast(tf.cast(x > 0.0, tf.int32) * 3, tf.float32)
    x = tf.constant([1.0, 0.0, -2.5, np.nan, np.inf, -0.0, 3.0, 7.25], dtype=tf.float32)
    y = tf.constant([0.0, 0.0, 1.5, 2.0, -np.inf, 0.0, np.nan, -1.0], dtype=tf.float32)
    plain, compiled, _ = _both(f, x, y)
    for p, c in zip(plain, compiled):
        _same_bits(p.numpy(), c.numpy())


def test_signed_zeros_follow_numpys_tie_rule():
    def f(x, s):
        return (tf.maximum(x, 0.0), tf.maximum(0.0, x), tf.minimum(x, -0.0), tf.nn.relu(x), tf.maximum(s, 0.0),
                tf.minimum(0.0, s), tf.nn.relu(s))
    x = tf.constant([-0.0, 0.0, -1.0, 2.0, np.nan])
    plain, compiled, _ = _both(f, x, tf.constant(-0.0))
    for p, c in zip(plain, compiled):
        _same_bits(p.numpy(), c.numpy())


def test_int32_arithmetic_wraps_as_tensorflow():
    def f(x, n):
        y = x * 65536 + n
        return y * y - 7, n * n + 2147483647, x % 7, x // 3
    x = tf.constant([40000, -40000, 2147483647, -5], dtype=tf.int32)
    n = tf.constant(123456, dtype=tf.int32)
    plain, compiled, _ = _both(f, x, n)
    for p, c in zip(plain, compiled):
        _same_bits(p.numpy(), c.numpy())


def test_compiled_eigen_sums_equal_the_numpy_path_at_every_layout_of_a_run():
    """The kernels' float32 total (scalar lanes, no scratch arrays) against eigen_sum.reduce_sum: every
    length up to 300 (blocks of 32, leftover packets, tails), run boundaries near 8192, a multi-thread
    split, signed zeros and huge values; and the 1-D entry the kernels call for rank-1 values."""
    from tensorflux._src.ops.math import eigen_sum
    helpers = tiering._helpers(numba)
    rs = np.random.RandomState(3)
    sizes = list(range(0, 301)) + [1023, 1024, 1025, 8191, 8192, 8193, 16391, 70001, 250007]
    for n in sizes:
        for scale in (1.0, 1e30):
            x = (rs.randn(n) * scale).astype(np.float32)
            if n % 7 == 0:
                x[:] = -0.0
            want = np.float32(eigen_sum.reduce_sum(x, None))
            threads = np.int64(eigen_sum._threads())       # the pool size the NumPy path splits over
            for total in (helpers["u_eigen_total"](x.reshape(-1, 1) if n else x, threads),
                          helpers["u_eigen_flat_total"](x, threads)):
                _same_bits(np.float32(total), want)


def test_full_reductions_give_the_numpy_paths_bits():
    rs = np.random.RandomState(0)
    for n in (0, 5, 127, 1000, 100003):
        x = tf.constant((rs.randn(n) * 100).astype(np.float32))

        def f(x):
            return tf.reduce_sum(x), tf.reduce_mean(x * 2.0), tf.reduce_max(x, keepdims=True), tf.reduce_min(x)
        plain, compiled, _ = _both(f, x)
        for p, c in zip(plain, compiled):
            _same_bits(p.numpy(), c.numpy())


def test_while_and_cond_compile_into_the_kernel():
    def f(x, n):
        i = tf.constant(0)
        while i < n:
            if tf.reduce_sum(x) > 10.0:
                x = x * 0.5
            else:
                x = x + 3.0
            i += 1
        return x, i
    x = tf.constant([1.0, 2.0, 3.0])
    plain, compiled, cf = _both(f, x, tf.constant(7))
    for p, c in zip(plain, compiled):
        _same_bits(p.numpy(), c.numpy())
    source = tf.function(f, jit_compile=True).experimental_get_compiler_ir(x, tf.constant(7))(stage="hlo")
    assert "while True:" in source and "if " in source


def test_transcendental_float32_is_within_a_few_ulp():
    def loop(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    x = tf.constant([0.61853385, 0.565122664, 0.620023966, 0.718450546, 0.70036608], dtype=tf.float32) * 5
    plain, compiled, cf = _both(loop, x)
    # float32 tanh is lowered to Eigen's tanh (runtime/tiering.u_eigen_tanh), as the plain path computes it:
    # the same bits, so automatic tiering takes this loop.
    _same_bits(plain.numpy(), compiled.numpy())
    assert jit_module.lowered_or_none(cf).exact
    exp_loop = tf.function(lambda x: tf.exp(x) * 0.5).get_concrete_function(x)
    assert not jit_module.lowered_or_none(exp_loop).exact  # exp still calls libm: tiering leaves it on NumPy
    many = tf.constant(np.random.RandomState(0).randn(1 << 16).astype(np.float32) * 4)
    for fn in (tf.tanh, tf.exp, tf.sin, tf.cos):
        plain, compiled, _ = _both(lambda x: fn(x) * 1.0 + 0.0, many)
        np.testing.assert_array_max_ulp(plain.numpy(), compiled.numpy(), maxulp=6)
    x64 = tf.constant(np.linspace(-4, 4, 257))
    plain, compiled, cf = _both(lambda x: tf.exp(x) + tf.math.log(tf.abs(x) + 1.0) * tf.sin(x), x64)
    if all(lowering.numpy_float64_is_libm(t) for t in ("Exp", "Log", "Sin")):
        _same_bits(plain.numpy(), compiled.numpy())      # float64: NumPy calls the same libm
        assert jit_module.lowered_or_none(cf).exact
    else:      # NumPy's own float64 SIMD code (AVX-512): a few ulp, and tiering leaves the function alone
        np.testing.assert_array_max_ulp(plain.numpy(), compiled.numpy(), maxulp=4)
        assert not jit_module.lowered_or_none(cf).exact


def test_op_xla_cannot_compile_raises_tensorflows_error():
    f = tf.function(lambda x: tf.strings.as_string(x), jit_compile=True)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(1.0))
    message = str(info.value)
    assert "Detected unsupported operations when trying to compile graph __inference_" in message
    assert "[_XlaMustCompile=true] on XLA_CPU_JIT: AsString (No registered 'AsString' OpKernel for " \
           "XLA_CPU_JIT devices compatible with node {{node AsString}}){{node AsString}}" in message


def test_op_tensorflux_cannot_compile_runs_on_numpy_with_a_warning(caplog):
    f = tf.function(lambda a, b: tf.matmul(a, b) + 1.0, jit_compile=True)
    a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        result = f(a, tf.transpose(a))
    np.testing.assert_array_equal(result.numpy(), a.numpy() @ a.numpy().T + 1)
    assert "MatMul" in caplog.text and "NumPy path" in caplog.text


def test_compiler_ir_words_and_stages():
    with pytest.raises(ValueError, match=r"^Compiler IR can only be returned for functions marked with "
                                         r"'jit_compile=True'$"):
        tf.function(lambda x: x * 2.0).experimental_get_compiler_ir(tf.constant(1.0))
    get = tf.function(lambda x: x * 2.0, jit_compile=True).experimental_get_compiler_ir(tf.constant(1.0))
    assert get() == get(stage="optimized_hlo") and get().startswith("def kernel(")
    with pytest.raises(ValueError, match=r"^Invalid stage selected: 'bogus'. Valid values are: 'hlo', "
                                         r"'hlo_serialized', 'optimized_hlo', 'optimized_hlo_serialized', "
                                         r"'optimized_hlo_dot'$"):
        get(stage="bogus")


def test_experimental_compile_is_jit_compile():
    f = tf.function(lambda x: x * 2.0 + 1.0, experimental_compile=True)
    assert float(f(tf.constant(2.0))) == 5.0
    assert f.experimental_get_compiler_ir(tf.constant(2.0))().startswith("def kernel(")
    with pytest.raises(ValueError, match="Cannot specify both 'experimental_compile' and 'jit_compile'."):
        tf.function(lambda x: x, jit_compile=True, experimental_compile=True)


def test_lowering_is_canonical():
    sources = {tf.function(_chain, jit_compile=True).experimental_get_compiler_ir(tf.constant(1.0))()
               for _ in range(2)}
    assert len(sources) == 1
    (source,) = sources
    assert "1.0001" not in source     # constants are arguments, never text


def test_a_call_the_kernel_rejects_gets_the_numpy_paths_error():
    f = tf.function(lambda x, y: (x + y) * 2.0, jit_compile=True,
                    input_signature=[tf.TensorSpec([None], tf.float32)] * 2)
    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy(), [8.0, 12.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]))


def test_without_numba_jit_compile_warns_and_runs_numpy(monkeypatch, caplog):
    monkeypatch.setattr(tiering, "numba_module", lambda: None)
    monkeypatch.setattr(jit_module, "_WARNED_NO_NUMBA", [])
    f = tf.function(_chain, jit_compile=True)
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        result = f(tf.constant(1.0))
    assert 'pip install "tensorflux[jit]"' in caplog.text
    _same_bits(result.numpy(), tf.function(_chain)(tf.constant(1.0)).numpy())
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        tf.function(lambda x: _chain(x) * 2.0, jit_compile=True)(tf.constant(1.0))
    assert "numba" not in caplog.text      # said once per process


def test_hot_function_switches_to_the_kernel_in_the_background(monkeypatch):
    monkeypatch.setattr(tiering, "_THRESHOLD", [3])
    f = tf.function(_chain)
    x = tf.constant(np.linspace(0, 1, 50, dtype=np.float32))
    cf = f.get_concrete_function(x)
    expected = f(x).numpy()
    for _ in range(3):
        _same_bits(f(x).numpy(), expected)     # never waits: the NumPy code answers meanwhile
    deadline = time.time() + 120
    while not hasattr(cf._fn, "kernel") and time.time() < deadline:
        time.sleep(0.05)
    assert hasattr(cf._fn, "kernel")
    _same_bits(f(x).numpy(), expected)


def test_tiering_leaves_small_or_inexact_functions_alone(monkeypatch):
    monkeypatch.setattr(tiering, "_THRESHOLD", [1])
    started = []
    monkeypatch.setattr(tiering, "compile_in_background", lambda *a: started.append(a))
    tf.function(lambda x: x + 1.0)(tf.constant(1.0))                       # too little work
    tf.function(lambda x: tf.exp(tf.exp(_chain(x))))(tf.constant(1.0))  # float32 libm: not bit-equal
    tf.function(lambda x: _chain(x), jit_compile=False)(tf.constant(1.0))  # jit_compile=False: never
    assert not started
    tf.function(_chain)(tf.constant(1.0))
    assert len(started) == 1


def test_a_function_holding_a_loop_tiers_after_a_tenth_of_the_calls(monkeypatch):
    monkeypatch.setattr(tiering, "_THRESHOLD", [30])
    started = []
    monkeypatch.setattr(tiering, "compile_in_background", lambda lowered, *a: started.append(lowered))

    def loop(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x
    looping, chain = tf.function(loop), tf.function(_chain)
    x = tf.constant([0.6, 0.5, 0.7], dtype=tf.float32) * 5
    for _ in range(2):
        looping(x), chain(x)
    assert not started
    looping(x), chain(x)                   # the third call (30 // 10): only the loop is compiled
    assert len(started) == 1 and "while True:" in started[0].source
    for _ in range(26):
        chain(x)
    assert len(started) == 1
    chain(x)                               # the 30th call of the chain
    assert len(started) == 2 and "while" not in started[1].source
    assert tiering.loop_threshold(0) == 0 and tiering.loop_threshold(1) == 1 and tiering.loop_threshold(5) == 1


def test_set_jit_autoclustering_tiers_from_the_first_call(monkeypatch):
    from tensorflux._src.framework import context
    monkeypatch.setattr(tiering, "_THRESHOLD", [0])
    assert context.get_optimizer_jit() == ""
    context.set_optimizer_jit(True)
    try:
        assert context.get_optimizer_jit() == "autoclustering" and tiering.threshold() == 1
    finally:
        context.set_optimizer_jit(False)
    assert tiering.threshold() == 0


def test_disk_cache_holds_our_source_and_refuses_a_shared_directory(private_cache, tmp_path, monkeypatch):
    get = tf.function(_chain, jit_compile=True)
    source = get.experimental_get_compiler_ir(tf.constant(1.0))()
    get(tf.constant(1.0))
    files = [p for p in private_cache.iterdir() if p.suffix == ".py"]
    assert len(files) == 1 and files[0].read_text().endswith(source.split("\n", 1)[1])
    assert (private_cache.stat().st_mode & 0o777) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(shared))
    assert tiering.cache_dir() is None


def test_a_tampered_cache_file_is_rewritten_not_run(private_cache):
    f = tf.function(_chain, jit_compile=True)
    f(tf.constant(1.0))
    (path,) = [p for p in private_cache.iterdir() if p.suffix == ".py"]
    path.write_text("raise SystemExit('cache file executed')\n")
    again = tf.function(_chain, jit_compile=True)
    _same_bits(again(tf.constant(1.0)).numpy(), tf.function(_chain)(tf.constant(1.0)).numpy())
    assert "SystemExit" not in path.read_text()


def test_second_process_reuses_the_cached_kernel(private_cache):
    script = textwrap.dedent("""
        import time, numpy as np, tensorflux as tf
        def chain(x):
            for _ in range(10):
                x = x * 1.0001
                x = x + 0.0001
            return x
        print(float(tf.function(chain, jit_compile=True)(tf.constant(1.0))))
    """)
    env = dict(os.environ, TENSORFLUX_CACHE_DIR=str(private_cache), NUMBA_DEBUG_CACHE="1")
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert "data saved" in first.stdout and "data loaded" in second.stdout
    assert first.stdout.splitlines()[-1] == second.stdout.splitlines()[-1]


@pytest.mark.parametrize("size", [1 << 19, 1 << 22])
def test_ten_op_chain_allocates_only_its_result(size):
    script = textwrap.dedent(f"""
        import numpy as np, tensorflux as tf
        from numba.core.runtime import rtsys
        @tf.function(jit_compile=True)
        def f(x):
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
        one_op = tf.function(lambda x: x * 1.5 + 0.0, jit_compile=True)
        x = tf.constant(np.random.RandomState(0).rand({size}).astype(np.float32))
        from tensorflux._src.runtime import blocked_map
        seen = []
        for g in (f, one_op):
            g(x)
            calls = {{}}
            for _ in range(12):
                before, runs = rtsys.get_allocation_stats(), dict(blocked_map.RUNS)
                g(x)
                after = rtsys.get_allocation_stats()
                # numba makes a record per array slice a thread is passed: the count depends on whether the
                # call ran in blocks and how many helpers took part, which the load decides
                way = tuple(blocked_map.RUNS[k] - runs[k] for k in ("blocks", "shared"))
                calls.setdefault(way, after.alloc - before.alloc)
            seen.append(calls)
        common = sorted(set(seen[0]) & set(seen[1]))
        print(*(seen[0][common[0]], seen[1][common[0]]) if common else (-1, -1))
    """)
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    chain_allocs, one_allocs = map(int, out.stdout.split()[-2:])
    if chain_allocs < 0:
        pytest.skip("no call of the chain and of one op had as many helpers taking part (a loaded machine)")
    # As many allocations as a single op run the same way: the ten ops make no intermediate array at
    # all, so the peak is the input and one result. The serial kernel (2^19 floats) allocates its result and
    # numba's record of the argument; the blocked one (2^22, runtime/blocked_map.py) gets its result from
    # NumPy and numba makes a record per array slice it is passed (test_blocked_map.py measures the bytes).
    assert chain_allocs == one_allocs
    if size < lowering.PARALLEL_MIN_ELEMENTS:
        assert chain_allocs <= 2


def test_lowering_refuses_stateful_ops():
    @tf.function
    def f(x):
        return tf.random.uniform([]) * x     # variables are lowered (test_compiled_variables.py)
    cf = f.get_concrete_function(tf.constant(1.0))
    with pytest.raises(lowering.Unsupported, match="stateful"):
        lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))
