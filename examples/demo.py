"""tensorflux demo: a traced function, its retracing, its graph as generated Python, and its speed-up.

Run: python examples/demo.py
"""
import timeit

import tensorflux as tf


@tf.function
def scaled_sum(x, scale):
    print(f"  (tracing for {x.dtype.name}{x.shape} and scale={scale})")  # runs only while tracing
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(x)[0]):          # AutoGraph: one While op, whatever the length
        if x[i] > 0:                              # a tensor condition: a cond inside the loop
            total += x[i] * scale
    return total


def eager_chain(x):
    for _ in range(20):
        x = tf.tanh(x * 1.01 + 0.1)
    return x


def main():
    print("1. Calling a tf.function traces it once per input signature:")
    x = tf.constant([1.0, -2.0, 3.0])
    print("  ->", scaled_sum(x, 2.0).numpy())
    print("  ->", scaled_sum(tf.constant([4.0, 5.0, -6.0]), 2.0).numpy(), "(same signature: no retrace)")
    print("  ->", scaled_sum(tf.constant([1.0, 2.0]), 2.0).numpy(), "(new shape: retrace)")
    print("  ->", scaled_sum(x, 3.0).numpy(), "(new Python value: retrace)")
    print()
    print("2. Why it retraced:")
    print(scaled_sum.experimental_explain_retracing())
    print()
    cf = scaled_sum.get_concrete_function(tf.TensorSpec([None], tf.float32), 2.0)
    print("3. The concrete function and the Python its graph runs as:")
    print(cf)
    print(cf.generated_source())

    traced_chain = tf.function(eager_chain)
    v = tf.constant([0.5, 0.25])
    traced_chain(v)
    eager = timeit.timeit(lambda: eager_chain(v), number=300) / 300
    # The first 100 calls of a traced function run its generated NumPy code; a hot function is then
    # compiled in the background (with numba installed). jit_compile=True compiles on the first call.
    traced = timeit.timeit(lambda: traced_chain(v), number=90) / 90
    ident = tf.function(lambda t: t)
    ident(v)
    call = timeit.timeit(lambda: ident(v), number=20000) / 20000
    print("4. Speed (60-op elementwise chain on a [2] vector):")
    print(f"  eager                   {eager * 1e6:8.1f} us per call")
    print(f"  traced (generated code) {traced * 1e6:8.1f} us per call  ({eager / traced:.1f}x faster)")
    try:
        compiled_chain = tf.function(eager_chain, jit_compile=True)
        compiled_chain(v)
        compiled = timeit.timeit(lambda: compiled_chain(v), number=2000) / 2000
        print(f"  jit_compile=True (numba) {compiled * 1e6:7.1f} us per call  ({eager / compiled:.0f}x faster)")
    except ImportError:
        print("  jit_compile=True: install the [jit] extra (numba) to compile whole graphs")
    print(f"  tf.function call overhead (identity): {call * 1e6:.2f} us")

if __name__ == "__main__":
    main()
