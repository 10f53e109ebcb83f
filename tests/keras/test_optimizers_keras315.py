"""ScheduleFreeAdamW, Muon, LossScaleOptimizer, MultiOptimizer/OptimizerMap against Keras 3.15 on TensorFlow
(fixtures/keras315_optimizers_*.json, written by fixtures/record_keras315_optimizers.py): the variables after
each of five apply_gradients steps on a [3, 4], a [4], a tall [4, 3] and an "embedding_table" [2, 3] variable,
the optimizer's variables (paths, shapes, dtypes, values) and get_config(); then from_config, the loss
scale's skipped steps under tf.function, and the base-class behaviour Keras has (a required learning rate,
Regularizer.get_config raising).

Tolerance: float32 results within rtol 2e-6 / atol 2e-7 of Keras's. Measured over all five steps: the loss
scale cases, ScheduleFreeAdamW's default and warmup/decay cases are bit-equal to Keras; the largest absolute
difference elsewhere is 6e-8 (Muon, whose every Newton-Schulz iteration takes three matmuls, and
ScheduleFreeAdamW with clipnorm), 4e-9 for MultiOptimizer.
"""
import json
import pathlib
import re

import numpy as np
import pytest

import tensorflux as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def _load(suffix):
    return json.loads((FIXTURES / f"keras315_optimizers_{suffix}.json").read_text())


SCHEDULE_FREE, MUON, LOSS_SCALE, MULTI = (_load(s) for s in ("schedule_free_adamw", "muon", "loss_scale", "multi"))
TOLERANCE = {"rtol": 2e-6, "atol": 2e-7}

K = tf.keras.optimizers
MAKE = {
    ("schedule_free_adamw", "default"): lambda: K.ScheduleFreeAdamW(),
    ("schedule_free_adamw", "warmup_decay"): lambda: K.ScheduleFreeAdamW(0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-6,
                                                                          warmup_steps=3, weight_decay=0.05),
    ("schedule_free_adamw", "clipnorm"): lambda: K.ScheduleFreeAdamW(0.02, clipnorm=0.5),
    ("muon", "default"): lambda: K.Muon(),
    ("muon", "plain"): lambda: K.Muon(0.02, nesterov=False, rms_rate=None, ns_steps=3, weight_decay=0.01,
                                      adam_weight_decay=0.02, momentum=0.9),
    ("muon", "excluded"): lambda: K.Muon(0.01, exclude_layers=["tal+"], exclude_embeddings=False, adam_lr_ratio=0.5,
                                         adam_beta_1=0.8, adam_beta_2=0.9, epsilon=1e-5),
    ("loss_scale", "sgd"): lambda: K.LossScaleOptimizer(K.SGD(0.1), initial_scale=8.0, dynamic_growth_steps=2),
    ("loss_scale", "adam"): lambda: K.LossScaleOptimizer(K.Adam(0.01), initial_scale=64.0, dynamic_growth_steps=3),
    ("loss_scale", "default"): lambda: K.LossScaleOptimizer(K.RMSprop()),
    ("multi", "map"): lambda: K.MultiOptimizer(K.OptimizerMap(K.SGD(0.1, name="sgd_default"),
                                                              {"ker.*": K.Adam(0.01, name="adam_kernels"),
                                                               "bias": K.RMSprop(0.01, name="rms_bias")}),
                                               name="multi"),
}
RECORDED = {"schedule_free_adamw": SCHEDULE_FREE, "muon": MUON, "loss_scale": LOSS_SCALE, "multi": MULTI}


def _variables():
    return [tf.keras.Variable(np.linspace(-1, 1, 12).reshape(3, 4).astype("float32"), name="kernel"),
            tf.keras.Variable(np.linspace(0.5, -0.5, 4).astype("float32"), name="bias"),
            tf.keras.Variable(np.linspace(0.3, -0.8, 12).reshape(4, 3).astype("float32"), name="tall"),
            tf.keras.Variable(np.linspace(-0.2, 0.7, 6).reshape(2, 3).astype("float32"), name="embedding_table")]


def _gradients(t, bad=None):
    grads = [np.cos(np.arange(12) * (t + 1)).reshape(3, 4).astype("float32"),
             np.sin(np.arange(4) * (t + 2)).astype("float32"),
             np.cos(np.arange(12) * 0.5 * (t + 3)).reshape(4, 3).astype("float32"),
             np.sin(np.arange(6) * (t + 1)).reshape(2, 3).astype("float32")]
    if bad is not None:
        grads[1][2] = bad
    return grads


def _without_names(config):
    """A config with the optimizers' names left out (they count per process)."""
    if isinstance(config, dict):
        return {k: _without_names(v) for k, v in config.items() if k != "name"}
    return config


def _keys(config):
    """Every key of a nested config, in order."""
    if isinstance(config, dict):
        return [(k, _keys(v)) for k, v in config.items()]
    return None


@pytest.mark.parametrize("family,case", sorted(MAKE))
def test_steps_variables_and_config_as_keras(family, case):
    tf.keras.backend.clear_session()
    recorded = RECORDED[family][case]
    tolerance = TOLERANCE
    bad = {int(k): float(v) for k, v in recorded.get("bad_steps", {}).items()}
    variables = _variables()
    optimizer = MAKE[family, case]()
    for t, want in enumerate(recorded["steps"]):
        grads = _gradients(t, bad.get(t))
        if family == "loss_scale":      # the gradients of a loss scaled as the optimizer scales it
            scale = float(optimizer.dynamic_scale.numpy()) if optimizer.built else optimizer.initial_scale
            grads = [g * np.float32(scale) for g in grads]
        optimizer.apply_gradients(zip(grads, variables))
        for variable, value in zip(variables, want):
            np.testing.assert_allclose(variable.numpy(), np.array(value, "float32"), **tolerance,
                                       err_msg=f"step {t}, {variable.name}")
        if family == "loss_scale":
            extra = recorded["extra"][t]
            assert float(optimizer.dynamic_scale.numpy()) == extra["dynamic_scale"]
            assert int(optimizer.step_counter.numpy()) == extra["step_counter"]
            assert int(optimizer.iterations.numpy()) == extra["iterations"]
            assert float(np.asarray(optimizer.scale_loss(1.5))) == extra["scaled_loss"]
    got = [(re.sub(r":0$", "", v.name), list(v.shape), v.dtype.name) for v in optimizer.variables]
    want = [(v["path"], v["shape"], v["dtype"]) for v in recorded["variables"]]
    assert got == want
    for variable, described in zip(optimizer.variables, recorded["variables"]):
        np.testing.assert_allclose(variable.numpy(), np.array(described["value"], variable.dtype.name),
                                   **tolerance, err_msg=described["path"])
    config = json.loads(json.dumps(optimizer.get_config()))
    assert _keys(config) == _keys(recorded["config"])
    assert _without_names(config) == _without_names(recorded["config"])
    again = type(optimizer).from_config(optimizer.get_config())
    assert _without_names(json.loads(json.dumps(again.get_config()))) == _without_names(config)


def test_defaults_and_registry():
    assert K.get("muon").__class__ is K.Muon and K.get("schedulefreeadamw").__class__ is K.ScheduleFreeAdamW
    assert tf.keras.mixed_precision.LossScaleOptimizer is K.LossScaleOptimizer
    assert K.ScheduleFreeAdamW().get_config()["learning_rate"] == pytest.approx(0.0025)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        K.LossScaleOptimizer(K.SGD(), clipnorm=1.0)
    with pytest.raises(ValueError, match="no longer supports `dynamic=False`"):
        K.LossScaleOptimizer(K.SGD(), dynamic=False)
    K.LossScaleOptimizer(K.SGD(), clipnorm=None, use_ema=False)      # an old config's defaults are accepted
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        K.Muon().zeropower_via_newtonschulz5(tf.ones([3]), 5)
    for obj, keras_class in ((K.Muon(), "muon.Muon"), (K.ScheduleFreeAdamW(), "schedule_free_adamw.ScheduleFreeAdamW"),
                             (K.LossScaleOptimizer(K.SGD()), "loss_scale_optimizer.LossScaleOptimizer"),
                             (K.OptimizerMap(K.SGD()), "multi_optimizer.OptimizerMap"), (K.Lamb(), "lamb.Lamb")):
        assert repr(obj).startswith(f"<keras.src.optimizers.{keras_class} object at 0x")    # as Keras' repr


def test_loss_scale_skips_non_finite_steps_inside_tf_function():
    variable = tf.keras.Variable(np.ones(3, "float32"), name="w")
    optimizer = K.LossScaleOptimizer(K.SGD(0.5), initial_scale=4.0, dynamic_growth_steps=2)
    optimizer.build([variable])

    @tf.function
    def step(gradient):
        optimizer.apply_gradients([(gradient, variable)])

    step(tf.constant([4.0, 8.0, 0.0]))           # unscaled: [1, 2, 0]
    np.testing.assert_array_equal(variable.numpy(), [0.5, 0.0, 1.0])
    step(tf.constant([np.nan, 0.0, 0.0], tf.float32))  # skipped; the scale halves
    np.testing.assert_array_equal(variable.numpy(), [0.5, 0.0, 1.0])
    assert float(optimizer.dynamic_scale.numpy()) == 2.0 and int(optimizer.iterations.numpy()) == 1
    step(tf.constant([2.0, 2.0, 2.0]))
    step(tf.constant([2.0, 2.0, 2.0]))           # the second finite step in a row doubles the scale
    np.testing.assert_array_equal(variable.numpy(), [-0.5, -1.0, 0.0])
    assert float(optimizer.dynamic_scale.numpy()) == 4.0 and int(optimizer.step_counter.numpy()) == 0
    assert float(optimizer.scale_loss(tf.constant(3.0)).numpy()) == 12.0


def test_loss_scale_wraps_a_training_loop():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype("float32")
    y = x @ rng.standard_normal((4, 1)).astype("float32")
    dense = tf.keras.layers.Dense(1)
    dense.build((None, 4))
    optimizer = K.LossScaleOptimizer(K.Adam(0.05), initial_scale=1024.0)
    losses = []
    for _ in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(dense(x) - y))
            scaled = optimizer.scale_loss(loss)
        optimizer.apply_gradients(zip(tape.gradient(scaled, dense.trainable_variables), dense.trainable_variables))
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.5 * losses[0]


def test_optimizer_map_lookup_and_multi_optimizer_errors():
    adam, sgd, rms = K.Adam(), K.SGD(), K.RMSprop()
    mapping = K.OptimizerMap(rms)
    mapping["encoder/layer_0/dense"] = adam
    mapping["encoder/.*"] = sgd
    mapping["decoder"] = adam
    assert mapping["encoder/layer_0/dense"] is adam and mapping["encoder/layer_0/attention/query"] is sgd
    assert mapping["decoder"] is adam and mapping["decoder/layer_0/dense"] is rms and len(mapping) == 3
    mapping["enc.*"] = K.Lion()
    with pytest.raises(ValueError, match="Multiple optimizers assigned"):
        mapping["encoder/x"]
    with pytest.raises(ValueError, match="already exists"):
        mapping["decoder"] = sgd
    with pytest.raises(ValueError, match="cannot be LossScaleOptimizer"):
        mapping["other"] = K.LossScaleOptimizer(K.SGD())
    with pytest.raises(TypeError, match="must be a Keras Optimizer"):
        K.OptimizerMap("sgd")
    multi = K.MultiOptimizer(lambda v: adam if "kernel" in v.path else sgd, loss_scale_factor=2.0)
    with pytest.raises(AttributeError, match="cannot be accessed on a MultiOptimizer"):
        multi.learning_rate
    kernel = tf.keras.Variable(np.ones((2, 2), "float32"), name="kernel")
    bias = tf.keras.Variable(np.ones(2, "float32"), name="bias")
    multi.apply_gradients([(np.full((2, 2), 2.0, "float32"), kernel), (np.full(2, 2.0, "float32"), bias)])
    assert multi.optimizers == [adam, sgd] and adam.loss_scale_factor == 2.0
    np.testing.assert_allclose(bias.numpy(), [0.99, 0.99])       # SGD(0.01) on the unscaled gradient 1
    assert int(multi.iterations.numpy()) == 1 and int(adam.iterations.numpy()) == 1
    assert float(multi.scale_loss(tf.constant(1.5)).numpy()) == 3.0
    weights = [v.numpy() + 1 for v in multi.variables]       # its own, then adam's, then sgd's
    multi.set_weights(weights)
    assert all(np.array_equal(w, v.numpy()) for w, v in zip(weights, multi.variables)) and len(weights) == 8


def test_base_optimizer_requires_a_float_learning_rate():
    with pytest.raises(TypeError, match="learning_rate"):
        K.Optimizer()
    for bad in (1, np.float32(0.1), None):
        with pytest.raises(ValueError, match="Argument `learning_rate` should be float"):
            K.SGD(bad)
    optimizer = K.Optimizer(learning_rate=0.1)
    assert optimizer.name == "optimizer" or optimizer.name.startswith("optimizer_")
    assert [v.name.split("/")[-1] for v in optimizer.variables] == ["iteration:0", "learning_rate:0"]
    with pytest.warns(UserWarning, match="`decay` is no longer supported"):
        K.Optimizer(0.1, decay=0.5)
    with pytest.raises(NotImplementedError, match="must implement `update_step`"):
        optimizer.apply([np.ones(2, "float32")], [tf.keras.Variable(np.ones(2, "float32"))])


def test_exclude_from_weight_decay():
    kernel = tf.keras.Variable(np.ones(2, "float32"), name="kernel")
    bias = tf.keras.Variable(np.ones(2, "float32"), name="bias")
    optimizer = K.AdamW(0.1, weight_decay=0.5)
    optimizer.exclude_from_weight_decay(var_names=["bi"])
    optimizer.apply_gradients([(np.zeros(2, "float32"), kernel), (np.zeros(2, "float32"), bias)])
    np.testing.assert_allclose(kernel.numpy(), [0.95, 0.95])
    np.testing.assert_array_equal(bias.numpy(), [1.0, 1.0])
    with pytest.raises(ValueError, match="before the optimizer is built"):
        optimizer.exclude_from_weight_decay(var_names=["x"])


def test_base_regularizer_has_no_config():
    regularizer = tf.keras.regularizers.Regularizer()
    with pytest.raises(NotImplementedError, match=r"does not implement get_config\(\)"):
        regularizer.get_config()
    assert tf.keras.regularizers.L2(0.5).get_config() == {"l2": 0.5}


def test_loss_scale_keeps_sparse_gradients_sparse():
    # Keras 3.15 divides an IndexedSlices by the scale row by row, so Adam inside sums the squares of a
    # repeated row's slices (not the square of their sum) exactly as without the wrapper; Keras' values.
    def run(optimizer, scale):
        variable = tf.keras.Variable(np.ones((3, 2), "float32"))
        for _ in range(3):
            rows = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]) * scale, tf.constant([0, 0]),
                                    tf.constant([3, 2]))
            optimizer.apply_gradients([(rows, variable)])
        return variable.numpy()
    wrapped = run(K.LossScaleOptimizer(K.Adam(0.1), initial_scale=4.0), 4.0)
    np.testing.assert_array_equal(wrapped, run(K.Adam(0.1), 1.0))
    np.testing.assert_allclose(wrapped[0], [0.6205295324325562, 0.5975106954574585], rtol=1e-6)
    np.testing.assert_array_equal(wrapped[1:], 1.0)


def test_wrappers_list_no_learning_rate_variable_of_a_scheduled_inner_optimizer():
    # Keras makes no learning-rate variable for a schedule, so a wrapper lists (and a saved file holds)
    # one variable fewer per scheduled inner optimizer; Keras 3.15's lists.
    schedule = K.schedules.ExponentialDecay(0.1, 10, 0.5)
    kernel = tf.keras.Variable(np.ones((2, 2), "float32"), name="kernel")
    wrapper = K.LossScaleOptimizer(K.Adam(schedule, name="adam"), name="lso")
    wrapper.build([kernel])
    assert [v.name.rsplit(":", 1)[0] for v in wrapper.variables] == [
        "lso/iteration", "lso/learning_rate", "lso/step_counter", "lso/dynamic_scale", "adam/iteration",
        "adam/kernel_momentum", "adam/kernel_velocity"]
    multi = K.MultiOptimizer(K.OptimizerMap(K.SGD(schedule, name="sgd")), name="multi")
    multi.build([kernel])
    assert [v.name.rsplit(":", 1)[0] for v in multi.variables] == ["multi/iteration", "multi/learning_rate",
                                                                   "sgd/iteration"]


def test_an_optimizer_written_for_keras_runs():
    # The base-class API a Keras 3 optimizer is written against: add_variable(_from_reference),
    # _get_variable_index, assign/assign_add/assign_sub; then set_weights and save/load_own_variables.
    class HeavyBall(tf.keras.optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, momentum=0.5, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)
            self.momentum = momentum

        def build(self, variables):
            super().build(variables)
            self.velocities = [self.add_variable_from_reference(reference_variable=v, name="velocity")
                               for v in variables]
            self.steps_seen = self.add_variable(shape=(), initializer="ones", dtype="float32", name="seen")

        def update_step(self, gradient, variable, learning_rate):
            velocity = self.velocities[self._get_variable_index(variable)]
            self.assign(velocity, velocity * self.momentum - tf.cast(learning_rate, variable.dtype) * gradient)
            self.assign_add(variable, velocity)
            self.assign_sub(self.steps_seen, -1.0)

    kernel = tf.keras.Variable(np.ones(3, "float32"), name="kernel")
    reference = tf.keras.Variable(np.ones(3, "float32"), name="kernel")
    mine, sgd = HeavyBall(), K.SGD(0.1, momentum=0.5)
    for t in range(4):
        grad = np.array([1.0, -2.0, 0.5], "float32") * (t + 1)
        mine.apply_gradients([(grad, kernel)])
        sgd.apply_gradients([(grad, reference)])
    np.testing.assert_allclose(kernel.numpy(), reference.numpy(), rtol=1e-6)
    assert float(mine.steps_seen.numpy()) == 5.0
    assert [v.name.rsplit(":", 1)[0].split("/", 1)[1] for v in mine.variables] == [
        "iteration", "learning_rate", "kernel_velocity", "seen"]
    store = {}
    mine.save_own_variables(store)
    again = HeavyBall()
    again.build([kernel])
    again.load_own_variables(store)
    assert [v.numpy().tolist() for v in again.variables] == [v.numpy().tolist() for v in mine.variables]
    with pytest.warns(UserWarning, match="Skipping variable loading for optimizer"):
        again.load_own_variables({"0": 1})
    again.set_weights([np.int64(7), np.float32(0.5), np.zeros(3, "float32"), np.float32(1.0)])
    assert int(again.iterations.numpy()) == 7 and float(again.learning_rate.numpy()) == 0.5
    with pytest.raises(ValueError, match="not compatible with provided weight shape"):
        again.set_weights([np.int64(7), np.float32(0.5), np.zeros(2, "float32")])
    with pytest.raises(ValueError, match="has not yet been built"):
        HeavyBall().set_weights([])


# Keras 3.15 (under TENSORFLOW_PYTHON, skipped without it) loads a .keras file of a model compiled with each
# new optimizer, the optimizer's state included: the same variables, equal values, no variable skipped.
_KERAS_LOADS = r'''
import json, sys, warnings
import numpy as np
import keras
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = keras.models.load_model(sys.argv[1])
saved = np.load(sys.argv[2])
ours = [saved[f"arr_{i}"] for i in range(len(saved.files))]
theirs = [np.asarray(v) for v in model.optimizer.variables]
print(json.dumps({"class": type(model.optimizer).__name__, "count": [len(ours), len(theirs)],
                  "equal": len(ours) == len(theirs) and all(np.array_equal(a, b) for a, b in zip(ours, theirs)),
                  "skipped": [str(w.message) for w in caught if "Skipping variable loading" in str(w.message)
                              and "saved optimizer has 0 variables" not in str(w.message)]}))
'''
_SAVED = {"muon": lambda: K.Muon(0.02), "schedule_free": lambda: K.ScheduleFreeAdamW(0.05),
          "loss_scale_scheduled": lambda: K.LossScaleOptimizer(K.Adam(K.schedules.ExponentialDecay(0.1, 10, 0.5)),
                                                               initial_scale=4.0, dynamic_growth_steps=3),
          "multi": lambda: K.MultiOptimizer(K.OptimizerMap(K.SGD(0.05), {".*kernel": K.Adam(0.05)}))}


@pytest.mark.parametrize("name", sorted(_SAVED))
def test_keras_loads_the_optimizer_state(tmp_path, name):
    import sys
    interop = str(pathlib.Path(__file__).parent.parent / "interop")     # the interop tests' TensorFlow runner
    if interop not in sys.path:
        sys.path.insert(0, interop)
    from _tensorflow_side import require_tensorflow, run_tensorflow
    require_tensorflow()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype("float32")
    y = x @ rng.standard_normal((4, 1)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=_SAVED[name](), loss="mse")
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    model.save(tmp_path / "model.keras")
    np.savez(tmp_path / "state.npz", *[v.numpy() for v in model.optimizer.variables])
    result = run_tensorflow(_KERAS_LOADS, tmp_path / "model.keras", tmp_path / "state.npz")
    assert result["class"] == type(model.optimizer).__name__
    assert result["equal"], result["count"]
    assert result["skipped"] == []


_KERAS_SAVES = r'''
import json, sys
import numpy as np
import keras
K = keras.optimizers
makes = {"muon": lambda: K.Muon(0.02), "schedule_free": lambda: K.ScheduleFreeAdamW(0.05),
         "loss_scale_scheduled": lambda: K.LossScaleOptimizer(K.Adam(K.schedules.ExponentialDecay(0.1, 10, 0.5)),
                                                              initial_scale=4.0, dynamic_growth_steps=3),
         "multi": lambda: K.MultiOptimizer(K.OptimizerMap(K.SGD(0.05), {".*kernel": K.Adam(0.05)}))}
rng = np.random.default_rng(0)
x = rng.standard_normal((64, 4)).astype("float32")
y = x @ rng.standard_normal((4, 1)).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer=makes[sys.argv[2]](), loss="mse")
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
model.save(sys.argv[1] + "/model.keras")
np.savez(sys.argv[1] + "/state.npz", *[np.asarray(v) for v in model.optimizer.variables])
print(json.dumps({"class": type(model.optimizer).__name__}))
'''


@pytest.mark.parametrize("name", sorted(_SAVED))
def test_the_optimizer_state_of_a_keras_file_loads(tmp_path, name):
    import sys
    import warnings
    interop = str(pathlib.Path(__file__).parent.parent / "interop")
    if interop not in sys.path:
        sys.path.insert(0, interop)
    from _tensorflow_side import run_tensorflow
    result = run_tensorflow(_KERAS_SAVES, tmp_path, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = tf.keras.models.load_model(tmp_path / "model.keras")
    assert not [w for w in caught if "Skipping variable loading" in str(w.message)]     # nothing skipped
    assert type(model.optimizer).__name__ == result["class"]
    saved = np.load(tmp_path / "state.npz")
    theirs = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    ours = [v.numpy() for v in model.optimizer.variables]
    assert len(ours) == len(theirs) and all(np.array_equal(a, b) for a, b in zip(ours, theirs))


_MIRRORED = r'''
import json
import numpy as np
import tensorflux as tf
cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
K = tf.keras.optimizers
with strategy.scope():
    variable = tf.Variable(np.ones(2, "float32"))
    optimizer = K.LossScaleOptimizer(K.SGD(0.5), initial_scale=4.0)
    optimizer.build([variable])

def step(bad):
    replica = tf.distribute.get_replica_context().replica_id_in_sync_group
    gradient = tf.constant([4.0, 4.0]) * tf.cast(replica + 1, tf.float32)
    if bad:     # only the second replica's gradient is not finite
        gradient = tf.where(tf.equal(replica, 1), gradient * np.inf, gradient)
    optimizer.apply_gradients([(gradient, variable)])

out = []
for bad in (False, True):
    strategy.run(step, args=(bad,))
    out.append({"variable": np.asarray(tf.convert_to_tensor(variable)).tolist(),
                "scale": float(np.asarray(tf.convert_to_tensor(optimizer.dynamic_scale))),
                "iterations": int(np.asarray(tf.convert_to_tensor(optimizer.iterations)))})
print(json.dumps(out))
'''


def test_loss_scale_under_a_mirrored_strategy_skips_on_every_replica():
    # Own process: the CPU must be split into two logical devices before anything lists the devices.
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _MIRRORED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    finite, skipped = json.loads(done.stdout.strip().splitlines()[-1])
    # The replicas' unscaled gradients [1, 1] and [2, 2] are summed: 1 - 0.5 * 3.
    assert finite == {"variable": [-0.5, -0.5], "scale": 4.0, "iterations": 1}
    # One replica's inf: no replica applies the step, the scale halves once.
    assert skipped == {"variable": [-0.5, -0.5], "scale": 2.0, "iterations": 1}


@pytest.mark.parametrize("cls", [K.Muon, K.ScheduleFreeAdamW])
def test_from_config_with_a_schedule(cls):
    optimizer = cls(K.schedules.ExponentialDecay(0.1, 10, 0.5), clipnorm=1.0)
    config = json.loads(json.dumps(optimizer.get_config()))     # as a file holds it
    assert config["learning_rate"]["class_name"] == "ExponentialDecay"
    again = cls.from_config(config)
    assert again.get_config() == optimizer.get_config()
    plain = cls(0.25)
    plain.learning_rate = 0.125     # the current value is what a config holds
    assert plain.get_config()["learning_rate"] == 0.125
    wrapped = K.LossScaleOptimizer(optimizer)
    assert K.LossScaleOptimizer.from_config(json.loads(json.dumps(wrapped.get_config()))).get_config() == \
        wrapped.get_config()


def test_fit_trains_through_loss_scaling_as_without_it():
    """Keras' trainer takes the gradients of `optimizer.scale_loss(loss)`: a LossScaleOptimizer, or an
    optimizer with loss_scale_factor, trains as the plain optimizer does (not ~scale times too little)."""
    import numpy as np
    import tensorflux as tf

    x = np.random.RandomState(0).rand(32, 4).astype("float32")
    y = (x @ np.arange(1, 5, dtype="float32"))[:, None]

    def losses(optimizer):
        tf.keras.utils.set_random_seed(3)
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer=optimizer, loss="mse")
        return model.fit(x, y, epochs=4, batch_size=8, verbose=0, shuffle=False).history["loss"]

    plain = losses(tf.keras.optimizers.SGD(0.05))
    assert plain[-1] < plain[0] * 0.5
    np.testing.assert_allclose(losses(tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.SGD(0.05))),
                               plain, rtol=1e-5)
    np.testing.assert_allclose(losses(tf.keras.optimizers.SGD(0.05, loss_scale_factor=8.0)), plain, rtol=1e-5)
