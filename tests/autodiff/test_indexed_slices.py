"""tf.IndexedSlices as TensorFlow has it: the gradient of tf.gather (axis 0) and of Embedding, what tape.gradient
returns (eagerly and in tf.function), adding slices (concatenation) and slices to dense (densified),
tf.convert_to_tensor, and Keras optimizers applying them as Keras 3 does on TensorFlow (values recorded
under TensorFlow 2.21 / Keras 3.15)."""
import numpy as np
import pytest

import tensorflux as tf

# Two steps of each optimizer on a (4, 2) variable of ones with the gradient
# IndexedSlices(values=[[1, 2], [3, 4], [0.5, -1]], indices=[1, 1, 3], dense_shape=[4, 2]), under TensorFlow.
TENSORFLOW_SPARSE_STEPS = {
    "SGD": [[1.0, 1.0], [0.2, -0.2], [1.0, 1.0], [0.9, 1.2]],
    "SGDm": [[1.0, 1.0], [-0.16, -0.7400001], [1.0, 1.0], [0.855, 1.29]],
    "SGDn": [[1.0, 1.0], [-0.844, -1.7660002], [1.0, 1.0], [0.7695, 1.4610001]],
    "Adam": [[1.0, 1.0], [0.7470201, 0.7316743], [1.0, 1.0], [0.8000028, 1.1999977]],
    "AdamW": [[0.9992002, 0.9992002], [0.7462709, 0.7309281], [0.9992002, 0.9992002], [0.7992429, 1.199158]],
    "Adam_ams": [[1.0, 1.0], [0.7470201, 0.7316743], [1.0, 1.0], [0.8000028, 1.1999977]],
    "Nadam": [[1.0, 1.0], [0.7677148, 0.7536243], [1.0, 1.0], [0.8163624, 1.1836376]],
    "Adamax": [[1.0, 1.0], [0.8000001, 0.8000001], [1.0, 1.0], [0.8000001, 1.1999999]],
    "RMSprop": [[1.0, 1.0], [0.3098094, 0.2679424], [1.0, 1.0], [0.4543574, 1.5456433]],
    "RMSprop_m": [[1.0, 1.0], [0.1098095, 0.0558103], [1.0, 1.0], [0.2962438, 1.7037572]],
    "Adagrad": [[1.0, 1.0], [0.7849167, 0.7714201], [1.0, 1.0], [0.8509349, 1.1643528]],
    "Lion": [[1.0, 1.0], [0.8, 0.8], [1.0, 1.0], [0.8, 1.2]],
}
OPTIMIZERS = {
    "SGD": lambda: tf.keras.optimizers.SGD(0.1),
    "SGDm": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
    "SGDn": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "Adam": lambda: tf.keras.optimizers.Adam(0.1),
    "AdamW": lambda: tf.keras.optimizers.AdamW(0.1),
    "Adam_ams": lambda: tf.keras.optimizers.Adam(0.1, amsgrad=True),
    "Nadam": lambda: tf.keras.optimizers.Nadam(0.1),
    "Adamax": lambda: tf.keras.optimizers.Adamax(0.1),
    "RMSprop": lambda: tf.keras.optimizers.RMSprop(0.1),
    "RMSprop_m": lambda: tf.keras.optimizers.RMSprop(0.1, momentum=0.5),
    "Adagrad": lambda: tf.keras.optimizers.Adagrad(0.1),
    "Lion": lambda: tf.keras.optimizers.Lion(0.1),
}


def _slices():
    return tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [0.5, -1.]]), tf.constant([1, 1, 3]),
                            tf.constant([4, 2]))


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizers_apply_slices_as_keras_on_tensorflow(name):
    optimizer = OPTIMIZERS[name]()
    variable = tf.Variable(tf.ones((4, 2)))
    for _ in range(2):
        optimizer.apply_gradients([(_slices(), variable)])
    np.testing.assert_allclose(variable.numpy(), TENSORFLOW_SPARSE_STEPS[name], rtol=2e-6, atol=2e-6)


def test_sgd_applies_slices_inside_a_function():
    optimizer = tf.keras.optimizers.SGD(0.1)
    variable = tf.Variable(tf.ones((4, 2)))
    step = tf.function(lambda: optimizer.apply_gradients([(_slices(), variable)]))
    step()
    step()
    np.testing.assert_allclose(variable.numpy(), TENSORFLOW_SPARSE_STEPS["SGD"], rtol=2e-6, atol=2e-6)


def test_gather_gradient_is_indexed_slices():
    v = tf.Variable(tf.reshape(tf.range(12.), (4, 3)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0, 2, 0]) * 2.)
    g = tape.gradient(y, v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.dtype == tf.int32 and g.dense_shape.dtype == tf.int32
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2, 0])
    np.testing.assert_array_equal(g.values.numpy(), np.full((3, 3), 2.0))
    np.testing.assert_array_equal(g.dense_shape.numpy(), [4, 3])
    assert g.shape == (4, 3) and g.dtype == tf.float32
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[4.] * 3, [0.] * 3, [2.] * 3, [0.] * 3])
    # str as TensorFlow prints it
    assert str(g).startswith("IndexedSlices(indices=tf.Tensor([0 2 0], shape=(3,), dtype=int32), values=tf.Tensor(")


def test_gradient_kinds_as_tensorflow():
    v = tf.Variable(tf.reshape(tf.range(12.), (4, 3)))
    c = tf.reshape(tf.range(12.), (4, 3))
    with tf.GradientTape() as tape:
        tape.watch(c)
        y = tf.reduce_sum(tf.gather(c, [0, 2]))
    assert isinstance(tape.gradient(y, c), tf.IndexedSlices)           # a watched constant too
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [1], axis=1))
    assert not isinstance(tape.gradient(y, v), tf.IndexedSlices)       # axis 1: dense
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0, 1])) + tf.reduce_sum(tf.gather(v, [3]))
    g = tape.gradient(y, v)                                             # slices + slices: concatenated
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 1, 3])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [0, 1])) + tf.reduce_sum(v * 1.)
    g = tape.gradient(y, v)                                             # slices + dense: dense
    assert not isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.numpy(), [[2.] * 3, [2.] * 3, [1.] * 3, [1.] * 3])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v * 2., [0, 2]))
    assert not isinstance(tape.gradient(y, v), tf.IndexedSlices)       # through a multiplication: dense
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, [[0, 1], [2, 2]]))
    g = tape.gradient(y, v)                                             # 2-D indices are flattened
    np.testing.assert_array_equal(g.indices.numpy(), [0, 1, 2, 2])
    assert g.values.shape == (4, 3)


def test_slices_in_and_out_of_tf_function():
    v = tf.Variable(tf.reshape(tf.range(12.), (4, 3)))
    seen = []

    @tf.function
    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [0, 2]))
        g = tape.gradient(y, v)
        seen.append(type(g))
        return g

    g = grad()
    assert seen == [tf.IndexedSlices]
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 2])
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[1.] * 3, [0.] * 3, [1.] * 3, [0.] * 3])


def test_embedding_gradient_and_jacobian_stay_dense_where_tensorflow_is():
    layer = tf.keras.layers.Embedding(10, 4)
    layer.build((None,))
    with tf.GradientTape(persistent=True) as tape:
        out = layer(tf.constant([[1, 2], [3, 1]]))
        y = tf.reduce_sum(out)
    (g,) = tape.gradient(y, layer.trainable_variables)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [1, 2, 3, 1])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [10, 4])
    jac = tape.jacobian(out, layer.embeddings)
    assert not isinstance(jac, tf.IndexedSlices) and jac.shape == (2, 2, 4, 10, 4)


def test_second_gather_gradient_through_densified_slices():
    x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 0, 2]) ** 2)
        g = tf.convert_to_tensor(inner.gradient(y, x))
        z = tf.reduce_sum(g * g)
    second = outer.gradient(z, x)              # through UnsortedSegmentSum's gradient, a gather again
    assert isinstance(second, tf.IndexedSlices)
    np.testing.assert_allclose(tf.convert_to_tensor(second).numpy(), [[32., 64.], [0., 0.], [40., 48.]])


def test_negation_conversion_errors_and_spec():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([1]), tf.constant([3, 2]))
    np.testing.assert_array_equal(tf.convert_to_tensor(-s).numpy(), [[0., 0.], [-1., -2.], [0., 0.]])
    with pytest.raises(ValueError):
        tf.convert_to_tensor(s, dtype=tf.float64)
    with pytest.raises(ValueError):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.]]), tf.constant([0])))
    spec = s._type_spec
    assert isinstance(spec, tf.IndexedSlicesSpec) and spec.shape == (3, 2) and spec.dtype == tf.float32


def test_fit_trains_an_embedding_with_sparse_gradients():
    tf.keras.utils.set_random_seed(0)   # unseeded initial weights made the three-epoch loss trend a coin toss
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, size=(64, 5)).astype("int32")
    y = (x[:, 0] % 2).astype("int32")
    model = tf.keras.Sequential([tf.keras.layers.Embedding(50, 8), tf.keras.layers.GlobalAveragePooling1D(),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="sparse_categorical_crossentropy")
    model(x[:1])
    before = model.layers[0].embeddings.numpy().copy()
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    after = model.layers[0].embeddings.numpy()
    unused = sorted(set(range(50)) - set(x.ravel().tolist()))
    np.testing.assert_array_equal(after[unused], before[unused])   # untouched rows stay as they were
    assert history.history["loss"][-1] < history.history["loss"][0]
