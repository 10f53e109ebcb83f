"""More keras.losses: Huber, LogCosh, KLDivergence, Poisson, CosineSimilarity, the hinges, MAPE, MSLE and
BinaryFocalCrossentropy against NumPy and against values printed by TF 2.21's Keras for the same inputs."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras

Y_TRUE = np.array([[0., 1., 1.], [1., 0., 0.], [0., 0., 1.], [1., 1., 0.]], "float32")
Y_PROB = np.array([[0.2, 0.7, 0.9], [0.6, 0.3, 0.05], [0.1, 0.4, 0.55], [0.8, 0.35, 0.3]], "float32")
REG_TRUE = np.array([[1.5, -2.0, 3.0], [0.0, 0.5, 2.5], [4.0, 1.0, -1.0], [2.0, 2.0, 0.1]], "float32")
REG_PRED = np.array([[1.0, -0.5, 2.0], [0.3, 0.4, 4.0], [1.0, 1.2, 0.5], [2.5, 1.5, 0.0]], "float32")
WEIGHTS = np.array([1.0, 0.5, 2.0, 0.0], "float32")

L = keras.losses
# (loss, y_true, y_pred, unweighted value, value with WEIGHTS): printed by TF 2.21's Keras for these inputs.
TF_VALUES = [
    (lambda: L.Huber(), REG_TRUE, REG_PRED, 0.5375000238418579, 0.76583331823349),
    (lambda: L.Huber(delta=0.5), REG_TRUE, REG_PRED, 0.3395833373069763, 0.4585416913032532),
    (lambda: L.LogCosh(), REG_TRUE, REG_PRED, 0.4786638021469116, 0.6859163045883179),
    (lambda: L.KLDivergence(), Y_TRUE, Y_PROB, 0.7109137773513794, 0.47827839851379395),
    (lambda: L.Poisson(), Y_TRUE, Y_PROB, 0.6744718551635742, 0.5240101218223572),
    (lambda: L.CosineSimilarity(), REG_TRUE, REG_PRED, -0.8968502879142761, -0.6992670297622681),
    (lambda: L.Hinge(), Y_TRUE, REG_PRED, 1.3583333492279053, 1.3708332777023315),
    (lambda: L.Hinge(), np.sign(REG_TRUE), REG_PRED, 0.38333335518836975, 0.3583333492279053),
    (lambda: L.SquaredHinge(), Y_TRUE, REG_PRED, 3.6491665840148926, 3.1795835494995117),
    (lambda: L.CategoricalHinge(), Y_TRUE, REG_PRED, 1.7249999046325684, 1.5625),
    (lambda: L.MeanAbsolutePercentageError(), REG_TRUE, REG_PRED, 25000050.0, 12500056.0),
    (lambda: L.MeanSquaredLogarithmicError(), REG_TRUE, REG_PRED, 0.11771067976951599, 0.18825910985469818),
    (lambda: L.BinaryFocalCrossentropy(), Y_TRUE, Y_PROB, 0.0703720897436142, 0.04222966730594635),
    (lambda: L.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, gamma=1.5), Y_TRUE, Y_PROB,
     0.03931182622909546, 0.030543167144060135),
    (lambda: L.BinaryFocalCrossentropy(from_logits=True, label_smoothing=0.1), Y_TRUE, REG_PRED,
     0.5339725017547607, 0.4855690598487854),
]


@pytest.mark.parametrize("make, y_true, y_pred, plain, weighted", TF_VALUES)
def test_loss_objects_match_keras(make, y_true, y_pred, plain, weighted):
    loss = make()
    np.testing.assert_allclose(float(loss(y_true, y_pred)), plain, rtol=1e-6)
    np.testing.assert_allclose(float(loss(y_true, y_pred, sample_weight=WEIGHTS)), weighted, rtol=1e-6)


def test_loss_functions_match_keras_per_sample():
    # Per-sample values printed by TF 2.21's Keras.
    expected = {
        "huber": (REG_TRUE, REG_PRED, [0.5416666865348816, 0.3499999940395355, 1.1733332872390747, 0.085]),
        "log_cosh": (REG_TRUE, REG_PRED, [0.46977850794792175, 0.3015908896923065, 1.0615456104278564,
                                          0.08174020051956177]),
        "kl_divergence": (Y_TRUE, Y_PROB, [0.46203410625457764, 0.5108228325843811, 0.597834050655365,
                                           1.2729641199111938]),
        "poisson": (Y_TRUE, Y_PROB, [0.7540116906166077, 0.4869418144226074, 0.5492789149284363, 0.9076550602912903]),
        "cosine_similarity": (REG_TRUE, REG_PRED, [-0.9499577879905701, -0.9924686551094055, -0.6754379868507385,
                                                   -0.9695367813110352]),
        "hinge": (REG_TRUE, REG_PRED, [0.0, 0.5999999642372131, 0.5, 0.3333333432674408]),
        "squared_hinge": (REG_TRUE, REG_PRED, [0.0, 0.54666668176651, 0.75, 0.3333333432674408]),
        "mean_absolute_percentage_error": (REG_TRUE, REG_PRED, [47.222225189208984, 100000024.0, 81.66666412353516,
                                                                50.0]),
        "mean_squared_logarithmic_error": (REG_TRUE, REG_PRED, [0.04418467357754707, 0.06693730503320694,
                                                                0.3376915454864502, 0.02202918939292431]),
        "binary_focal_crossentropy": (Y_TRUE, Y_PROB, [0.014026698656380177, 0.03798701986670494,
                                                       0.06794922798871994, 0.1615254133939743]),
    }
    for name, (y_true, y_pred, values) in expected.items():
        np.testing.assert_allclose(L.get(name)(y_true, y_pred).numpy(), values, rtol=1e-5, err_msg=name)


def test_losses_match_numpy_formulas():
    t, p = REG_TRUE.astype(np.float64), REG_PRED.astype(np.float64)
    err = p - t
    huber = np.where(np.abs(err) <= 1.0, 0.5 * err ** 2, np.abs(err) - 0.5).mean(-1)
    np.testing.assert_allclose(L.huber(t, p).numpy(), huber, rtol=1e-6)
    np.testing.assert_allclose(L.logcosh(t, p).numpy(), np.log(np.cosh(err)).mean(-1), rtol=1e-5)
    cos = (t * p).sum(-1) / np.linalg.norm(t, axis=-1) / np.linalg.norm(p, axis=-1)
    np.testing.assert_allclose(L.cosine_similarity(t, p).numpy(), -cos, rtol=1e-5)
    np.testing.assert_allclose(L.msle(t, p).numpy(),
                               ((np.log1p(np.maximum(p, 1e-7)) - np.log1p(np.maximum(t, 1e-7))) ** 2).mean(-1),
                               rtol=1e-5)
    np.testing.assert_allclose(L.mape(t, p).numpy(), 100 * np.abs((t - p) / np.maximum(np.abs(t), 1e-7)).mean(-1),
                               rtol=1e-5)
    signs = 2 * Y_TRUE - 1                       # 0/1 labels are turned into -1/1
    np.testing.assert_allclose(L.hinge(Y_TRUE, p).numpy(), np.maximum(1 - signs * p, 0).mean(-1), rtol=1e-6)
    np.testing.assert_allclose(L.squared_hinge(Y_TRUE, p).numpy(), (np.maximum(1 - signs * p, 0) ** 2).mean(-1),
                               rtol=1e-6)
    best_wrong = ((1 - Y_TRUE) * p).max(-1)
    np.testing.assert_allclose(L.categorical_hinge(Y_TRUE, p).numpy(),
                               np.maximum(best_wrong - (Y_TRUE * p).sum(-1) + 1, 0), rtol=1e-6)
    q = Y_PROB.astype(np.float64)
    np.testing.assert_allclose(L.poisson(Y_TRUE, q).numpy(), (q - Y_TRUE * np.log(q + 1e-7)).mean(-1), rtol=1e-5)
    y = np.clip(Y_TRUE, 1e-7, 1)
    np.testing.assert_allclose(L.kld(Y_TRUE, q).numpy(), (y * np.log(y / q)).sum(-1), rtol=1e-5)
    bce = -(Y_TRUE * np.log(q) + (1 - Y_TRUE) * np.log(1 - q))
    p_t = Y_TRUE * q + (1 - Y_TRUE) * (1 - q)
    np.testing.assert_allclose(L.binary_focal_crossentropy(Y_TRUE, q, gamma=3.0).numpy(),
                               ((1 - p_t) ** 3 * bce).mean(-1), rtol=1e-5)


def test_names_defaults_and_aliases():
    names = {L.Huber: "huber_loss", L.LogCosh: "log_cosh", L.KLDivergence: "kl_divergence", L.Poisson: "poisson",
             L.CosineSimilarity: "cosine_similarity", L.Hinge: "hinge", L.SquaredHinge: "squared_hinge",
             L.CategoricalHinge: "categorical_hinge",
             L.MeanAbsolutePercentageError: "mean_absolute_percentage_error",
             L.MeanSquaredLogarithmicError: "mean_squared_logarithmic_error",
             L.BinaryFocalCrossentropy: "binary_focal_crossentropy"}
    for cls, name in names.items():
        assert cls().name == name and cls().reduction == "sum_over_batch_size"
    focal = L.BinaryFocalCrossentropy()
    assert (focal.alpha, focal.gamma, focal.apply_class_balancing, focal.from_logits) == (0.25, 2.0, False, False)
    # TF 2.21's tf.keras.losses exports the short names only; get() knows the long ones (recorded)
    assert L.mape is L.MAPE is L.get("mean_absolute_percentage_error")
    assert L.msle is L.MSLE is L.get("mean_squared_logarithmic_error")
    assert L.kld is L.get("kl_divergence") and L.logcosh is L.get("log_cosh")
    assert not hasattr(L, "log_cosh") and not hasattr(L, "mean_absolute_percentage_error")
    for name in ("huber", "log_cosh", "kl_divergence", "kld", "poisson", "cosine_similarity", "hinge",
                 "squared_hinge", "categorical_hinge", "mape", "msle", "binary_focal_crossentropy"):
        assert callable(L.get(name)) and not isinstance(L.get(name), L.Loss)
    assert isinstance(L.get("Huber"), L.Huber) and isinstance(L.get("BinaryFocalCrossentropy"),
                                                               L.BinaryFocalCrossentropy)
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        L.get("logcosh")                           # Keras 3's get() knows only log_cosh


def test_reductions_rank_matching_and_errors():
    y_true, y_pred = np.array([1.0, 2.0]), np.array([[1.5], [0.0]], "float32")
    np.testing.assert_allclose(L.huber(y_true, y_pred).numpy(), [0.125, 1.5])     # TF 2.21's Keras
    assert float(L.Huber()(y_true, y_pred)) == pytest.approx(0.8125)
    assert float(L.Huber(reduction="sum")(y_true, y_pred)) == pytest.approx(1.625)
    np.testing.assert_allclose(L.CosineSimilarity(axis=0)(REG_TRUE, REG_PRED).numpy(), -0.8339530825614929,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="must have the same rank"):
        L.binary_focal_crossentropy(np.ones(3), np.full((3, 1), 0.5, "float32"))
    with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
        L.LogCosh(reduction="avg")


def test_hinge_leaves_non_binary_labels_as_signs_inside_tf_function():
    @tf.function
    def both(y_true, y_pred):
        return L.hinge(y_true, y_pred), L.Hinge()(y_true, y_pred)

    per_sample, total = both(tf.constant([[0.0, 1.0]]), tf.constant([[0.3, 0.4]]))
    np.testing.assert_allclose(per_sample.numpy(), [(1.3 + 0.6) / 2], rtol=1e-6)
    per_sample, _ = both(tf.constant([[-1.0, 0.5]]), tf.constant([[0.3, 0.4]]))
    np.testing.assert_allclose(per_sample.numpy(), [(1.3 + 0.8) / 2], rtol=1e-6)
    assert float(total) == pytest.approx(0.95)


@pytest.mark.parametrize("loss", ["huber", "log_cosh", "msle", "mape", keras.losses.Huber(delta=0.5)])
def test_regression_losses_train_in_fit(loss):
    rng = np.random.RandomState(0)
    x = rng.rand(64, 3).astype("float32")
    y = (x @ np.array([[1.0], [2.0], [-1.0]], "float32") + 2.0).astype("float32")
    # softplus keeps predictions positive: msle clips negative ones, which would stop their gradient.
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="softplus")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss=loss)
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_classification_losses_train_in_fit():
    rng = np.random.RandomState(1)
    x = rng.randn(64, 4).astype("float32")
    y = (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype("float32")
    for loss in ("binary_focal_crossentropy", "hinge", "squared_hinge",
                 keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True)):
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile(optimizer=keras.optimizers.Adam(0.05), loss=loss)
        history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
        assert history.history["loss"][-1] < history.history["loss"][0], loss
