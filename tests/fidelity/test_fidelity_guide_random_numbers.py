"""Fidelity tests adapted from TensorFlow's guide "Random number generation"
(tensorflow/docs, site/en/guide/random_numbers.ipynb).

Each test replays, in its own words, one runnable example of the guide (with the setup of the earlier
cells it builds on) under tensorflux and compares what it prints with what TensorFlow 2.21 printed for the
same code. Seeded generators and stateless ops are deterministic in TensorFlow, so their printed numbers
are compared exactly; numbers drawn from a non-deterministic state (the global generator,
`from_non_deterministic_state`) are masked (`mask_numbers=True`), only the printed structure is compared.

Adaptations and omissions:
- The guide's setup splits the CPU into three virtual devices with
  `tf.config.experimental.set_virtual_device_configuration`. TensorFlow only accepts that before its
  runtime starts, so it is done when this module is imported; `test_virtual_cpu_devices` checks it.
- The guide counts traces with `global` counters; the tests use a list in the enclosing scope.
- Checkpoints and the SavedModel are written under pytest's tmp_path.
- Nothing is left out: the guide has no plots, and its GPU/TPU/XLA remarks have no runnable cells.
"""
import os
import sys

import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fidelity_guide_grads_modules_rng import expect  # noqa: E402


def _split_cpu_in_three():
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.experimental.set_virtual_device_configuration(
        cpus[0], [tf.config.experimental.VirtualDeviceConfiguration() for _ in range(3)])


try:
    _split_cpu_in_three()
    _SETUP_ERROR = None
except Exception as error:  # reported by test_virtual_cpu_devices
    _SETUP_ERROR = error


def test_virtual_cpu_devices(capsys):
    if _SETUP_ERROR is not None:
        raise _SETUP_ERROR
    print([device.name for device in tf.config.list_logical_devices("CPU")])
    expect(capsys, """
['/device:CPU:0', '/device:CPU:1', '/device:CPU:2']
""")


def test_generator_from_seed(capsys):
    gen = tf.random.Generator.from_seed(1)
    print(gen.normal(shape=[2, 3]))
    expect(capsys, """
tf.Tensor(
[[ 0.43842274 -0.53439844 -0.07710262]
 [ 1.5658046  -0.1012345  -0.2744976 ]], shape=(2, 3), dtype=float32)
""")


def test_global_generator(capsys):
    gen = tf.random.get_global_generator()
    print(gen.normal(shape=[2, 3]))
    expect(capsys, """
tf.Tensor(
[[-0.48856762  0.56753975  0.9098954 ]
 [-0.08843965 -1.3855472   0.772724  ]], shape=(2, 3), dtype=float32)
""", mask_numbers=True)


def test_generator_from_seed_philox(capsys):
    gen = tf.random.Generator.from_seed(1, alg='philox')
    print(gen.normal(shape=[2, 3]))
    expect(capsys, """
tf.Tensor(
[[ 0.43842274 -0.53439844 -0.07710262]
 [ 1.5658046  -0.1012345  -0.2744976 ]], shape=(2, 3), dtype=float32)
""")


def test_generator_from_non_deterministic_state(capsys):
    gen = tf.random.Generator.from_non_deterministic_state()
    print(gen.normal(shape=[2, 3]))
    expect(capsys, """
tf.Tensor(
[[ 0.734641    1.4556457  -0.02483069]
 [-1.0694419  -0.30775025  0.6500518 ]], shape=(2, 3), dtype=float32)
""", mask_numbers=True)


def test_reset_from_seed_replays_the_stream(capsys):
    gen = tf.random.Generator.from_seed(1)
    print(gen.normal([]))
    print(gen.normal([]))
    gen.reset_from_seed(1)
    print(gen.normal([]))
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
tf.Tensor(1.6272374, shape=(), dtype=float32)
tf.Tensor(0.43842274, shape=(), dtype=float32)
""")


def test_split_into_independent_generators(capsys):
    gen = tf.random.Generator.from_seed(1)
    print(gen.normal([]))
    children = gen.split(3)
    for child in children:
        print(child.normal([]))
    print(gen.normal([]))  # split moved the parent's state on too
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
tf.Tensor(2.536413, shape=(), dtype=float32)
tf.Tensor(0.33186463, shape=(), dtype=float32)
tf.Tensor(-0.07144657, shape=(), dtype=float32)
tf.Tensor(-0.79253083, shape=(), dtype=float32)
""")


def test_split_global_generator_on_a_device(capsys):
    with tf.device("cpu"):
        local = tf.random.get_global_generator().split(1)[0]
        print(local.normal([]))
    expect(capsys, """
tf.Tensor(0.10582769, shape=(), dtype=float32)
""", mask_numbers=True)


def test_tf_function_uses_generator_made_outside(capsys):
    gen = tf.random.Generator.from_seed(1)

    @tf.function
    def draw():
        return gen.normal([])

    print(draw())
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
""")


def test_generator_created_on_first_trace(capsys):
    holder = [None]

    @tf.function
    def draw():
        if holder[0] is None:
            holder[0] = tf.random.Generator.from_seed(1)
        return holder[0].normal([])

    print(draw())
    print(draw())
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
tf.Tensor(1.6272374, shape=(), dtype=float32)
""")


def test_generator_arguments_cause_retracing(capsys):
    traces = [0]

    @tf.function
    def draw(gen):
        traces[0] += 1
        return gen.normal([])

    draw(tf.random.Generator.from_seed(1))
    draw(tf.random.Generator.from_seed(2))
    print(traces[0])
    expect(capsys, """
2
""")


def test_variable_arguments_cause_retracing_too(capsys):
    traces = [0]

    @tf.function
    def read(var):
        traces[0] += 1
        return var.read_value()

    read(tf.Variable(1))
    read(tf.Variable(2))
    print(traces[0])
    expect(capsys, """
1
""")


def _two_cpu_strategy():
    return tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])


def test_generator_made_outside_strategy(capsys):
    gen = tf.random.Generator.from_seed(1)
    strategy = _two_cpu_strategy()
    with strategy.scope():
        def per_replica():
            print(gen.normal([]))
        strategy.run(per_replica)
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
tf.Tensor(1.6272374, shape=(), dtype=float32)
""")


def test_generator_made_inside_strategy(capsys):
    strategy = _two_cpu_strategy()
    with strategy.scope():
        gen = tf.random.Generator.from_seed(1)
        print(strategy.run(lambda: gen.normal([])))
        print(strategy.run(lambda: gen.normal([])))
    expect(capsys, """
PerReplica:{
  0: tf.Tensor(-0.87930447, shape=(), dtype=float32),
  1: tf.Tensor(0.020661574, shape=(), dtype=float32)
}
PerReplica:{
  0: tf.Tensor(-1.5822568, shape=(), dtype=float32),
  1: tf.Tensor(0.77539235, shape=(), dtype=float32)
}
""")


def test_generator_made_per_replica_from_seed(capsys):
    strategy = _two_cpu_strategy()
    with strategy.scope():
        def per_replica():
            gen = tf.random.Generator.from_seed(1)
            first = gen.normal([])
            second = gen.normal([])
            return tf.stack([first, second])
        print(strategy.run(per_replica))
        print(strategy.run(per_replica))
    expect(capsys, """
PerReplica:{
  0: tf.Tensor([-0.87930447 -1.5822568 ], shape=(2,), dtype=float32),
  1: tf.Tensor([0.02066157 0.77539235], shape=(2,), dtype=float32)
}
PerReplica:{
  0: tf.Tensor([-0.87930447 -1.5822568 ], shape=(2,), dtype=float32),
  1: tf.Tensor([0.02066157 0.77539235], shape=(2,), dtype=float32)
}
""")


def test_checkpoint_restores_the_stream(capsys, tmp_path):
    prefix = str(tmp_path / "checkpoint")
    gen = tf.random.Generator.from_seed(1)
    ckpt = tf.train.Checkpoint(generator=gen)
    print(gen.normal([]))
    ckpt.write(prefix)
    print("RNG stream from saving point:")
    print(gen.normal([]))
    print(gen.normal([]))
    ckpt.restore(prefix)
    print("RNG stream from restoring point:")
    print(gen.normal([]))
    print(gen.normal([]))
    expect(capsys, """
tf.Tensor(0.43842274, shape=(), dtype=float32)
RNG stream from saving point:
tf.Tensor(1.6272374, shape=(), dtype=float32)
tf.Tensor(1.6307176, shape=(), dtype=float32)
RNG stream from restoring point:
tf.Tensor(1.6272374, shape=(), dtype=float32)
tf.Tensor(1.6307176, shape=(), dtype=float32)
""")


def test_checkpoint_inside_strategy(capsys, tmp_path):
    prefix = str(tmp_path / "checkpoint")
    strategy = _two_cpu_strategy()
    with strategy.scope():
        gen = tf.random.Generator.from_seed(1)
        ckpt = tf.train.Checkpoint(my_generator=gen)
        print(strategy.run(lambda: gen.normal([])))
    with strategy.scope():
        ckpt.write(prefix)
        print("RNG stream from saving point:")
        print(strategy.run(lambda: gen.normal([])))
        print(strategy.run(lambda: gen.normal([])))
    with strategy.scope():
        ckpt.restore(prefix)
        print("RNG stream from restoring point:")
        print(strategy.run(lambda: gen.normal([])))
        print(strategy.run(lambda: gen.normal([])))
    expect(capsys, """
PerReplica:{
  0: tf.Tensor(-0.87930447, shape=(), dtype=float32),
  1: tf.Tensor(0.020661574, shape=(), dtype=float32)
}
RNG stream from saving point:
PerReplica:{
  0: tf.Tensor(-1.5822568, shape=(), dtype=float32),
  1: tf.Tensor(0.77539235, shape=(), dtype=float32)
}
PerReplica:{
  0: tf.Tensor(-0.5039703, shape=(), dtype=float32),
  1: tf.Tensor(0.1251838, shape=(), dtype=float32)
}
RNG stream from restoring point:
PerReplica:{
  0: tf.Tensor(-1.5822568, shape=(), dtype=float32),
  1: tf.Tensor(0.77539235, shape=(), dtype=float32)
}
PerReplica:{
  0: tf.Tensor(-0.5039703, shape=(), dtype=float32),
  1: tf.Tensor(0.1251838, shape=(), dtype=float32)
}
""")


def test_checkpoint_restored_into_three_replicas(capsys, tmp_path):
    prefix = str(tmp_path / "checkpoint")
    two = _two_cpu_strategy()
    with two.scope():
        gen_two = tf.random.Generator.from_seed(1)
        ckpt_two = tf.train.Checkpoint(my_generator=gen_two)
        print(two.run(lambda: gen_two.normal([])))
    with two.scope():
        ckpt_two.write(prefix)
        print("RNG stream from saving point:")
        print(two.run(lambda: gen_two.normal([])))
        print(two.run(lambda: gen_two.normal([])))
    three = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
    with three.scope():
        gen_three = tf.random.Generator.from_seed(1)
        ckpt_three = tf.train.Checkpoint(my_generator=gen_three)
        ckpt_three.restore(prefix)
        print("RNG stream from restoring point:")
        print(three.run(lambda: gen_three.normal([])))
        print(three.run(lambda: gen_three.normal([])))
    expect(capsys, """
PerReplica:{
  0: tf.Tensor(-0.87930447, shape=(), dtype=float32),
  1: tf.Tensor(0.020661574, shape=(), dtype=float32)
}
RNG stream from saving point:
PerReplica:{
  0: tf.Tensor(-1.5822568, shape=(), dtype=float32),
  1: tf.Tensor(0.77539235, shape=(), dtype=float32)
}
PerReplica:{
  0: tf.Tensor(-0.5039703, shape=(), dtype=float32),
  1: tf.Tensor(0.1251838, shape=(), dtype=float32)
}
RNG stream from restoring point:
PerReplica:{
  0: tf.Tensor(-1.5822568, shape=(), dtype=float32),
  1: tf.Tensor(0.77539235, shape=(), dtype=float32),
  2: tf.Tensor(0.6851049, shape=(), dtype=float32)
}
PerReplica:{
  0: tf.Tensor(-0.5039703, shape=(), dtype=float32),
  1: tf.Tensor(0.1251838, shape=(), dtype=float32),
  2: tf.Tensor(-0.58519536, shape=(), dtype=float32)
}
""")


class GeneratorModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.g = tf.random.Generator.from_seed(0)

    @tf.function
    def __call__(self):
        return self.g.normal([])

    @tf.function
    def state(self):
        return self.g.state


def test_saved_model_with_generator(capsys, tmp_path):
    export_dir = str(tmp_path / "saved_model")
    strategy = _two_cpu_strategy()
    with strategy.scope():
        module = GeneratorModule()
        print(strategy.run(module))
        print("state:", module.state())
    with strategy.scope():
        tf.saved_model.save(module, export_dir)
        print("RNG stream from saving point:")
        print(strategy.run(module))
        print("state:", module.state())
        print(strategy.run(module))
        print("state:", module.state())
    restored = tf.saved_model.load(export_dir)
    print("RNG stream from loading point:")
    print("state:", restored.state())
    print(restored())
    print("state:", restored.state())
    print(restored())
    print("state:", restored.state())
    expect(capsys, """
PerReplica:{
  0: tf.Tensor(-1.4154755, shape=(), dtype=float32),
  1: tf.Tensor(-0.11388441, shape=(), dtype=float32)
}
state: tf.Tensor([256   0   0], shape=(3,), dtype=int64)
RNG stream from saving point:
PerReplica:{
  0: tf.Tensor(-0.68758255, shape=(), dtype=float32),
  1: tf.Tensor(0.8084062, shape=(), dtype=float32)
}
state: tf.Tensor([512   0   0], shape=(3,), dtype=int64)
PerReplica:{
  0: tf.Tensor(-0.27342677, shape=(), dtype=float32),
  1: tf.Tensor(-0.53093255, shape=(), dtype=float32)
}
state: tf.Tensor([768   0   0], shape=(3,), dtype=int64)
RNG stream from loading point:
state: tf.Tensor([256   0   0], shape=(3,), dtype=int64)
tf.Tensor(-1.0359411, shape=(), dtype=float32)
state: tf.Tensor([512   0   0], shape=(3,), dtype=int64)
tf.Tensor(-0.064250775, shape=(), dtype=float32)
state: tf.Tensor([768   0   0], shape=(3,), dtype=int64)
""")


def test_stateless_normal_is_a_pure_function(capsys):
    print(tf.random.stateless_normal(shape=[2, 3], seed=[1, 2]))
    print(tf.random.stateless_normal(shape=[2, 3], seed=[1, 2]))
    expect(capsys, """
tf.Tensor(
[[ 0.5441101   0.20738031  0.07356432]
 [ 0.04643455 -1.3015898  -0.9538565 ]], shape=(2, 3), dtype=float32)
tf.Tensor(
[[ 0.5441101   0.20738031  0.07356432]
 [ 0.04643455 -1.3015898  -0.9538565 ]], shape=(2, 3), dtype=float32)
""")
