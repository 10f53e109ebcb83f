"""The Keras 3.15 losses and metrics tensorflux lacked: crossentropy metrics, the IoU family, R2Score, the
correlations, Dice, Tversky, categorical focal and generalized crossentropies. Expected values were printed
by Keras 3.15 (TensorFlow 2.21) for the same inputs: several updates, sample weights, reductions, configs."""
import numpy as np
import pytest

import tensorflux as tf

M, L = tf.keras.metrics, tf.keras.losses
YB = np.array([[0, 1, 1, 0], [1, 1, 0, 0]], np.float32)
PB = np.array([[0.1, 0.8, 0.6, 0.3], [0.7, 0.2, 0.4, 0.1]], np.float32)
YC = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], np.float32)
PC = np.array([[0.05, 0.9, 0.05], [0.1, 0.5, 0.4], [0.6, 0.3, 0.1]], np.float32)
YS = np.array([1, 2, 0], np.int64)
SW = np.array([0.5, 1.0, 2.0], np.float32)
YI = np.array([0, 1, 2, 2, 1, 0], np.int64)
PI = np.array([0, 2, 2, 1, 1, 1], np.int64)
SWI = np.array([1, 2, 0.5, 1, 1, 3], np.float32)
YR = np.array([[1.0, 2.0], [2.0, 1.0], [3.5, 0.0], [4.0, 3.0]], np.float32)
PR = np.array([[1.2, 1.5], [2.1, 1.0], [3.0, 0.5], [4.5, 2.0]], np.float32)
YQ = np.array([[1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 0.0, 5.0]], np.float32)
PQ = np.array([[1.1, 2.5, 2.9, 4.2], [0.0, 1.0, 1.0, 3.0]], np.float32)


def _run(metric, *updates):
    for update in updates:
        metric.update_state(*update)
    return metric.result()


def _close(value, expected):
    value = np.asarray(value)
    assert value.dtype == np.float32
    np.testing.assert_allclose(value, expected, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("make, updates, expected", [
    (lambda: M.BinaryCrossentropy(), [(YB, PB), (YB[:1], PB[:1], [2.0])], 0.385645),
    (lambda: M.BinaryCrossentropy(from_logits=True, label_smoothing=0.2), [(YB, PB * 4 - 2)], 0.552825),
    (lambda: M.CategoricalCrossentropy(), [(YC, PC, SW), (YC[:2], PC[:2])], 0.547686),
    (lambda: M.CategoricalCrossentropy(label_smoothing=0.1, from_logits=True), [(YC, PC * 3)], 0.639146),
    (lambda: M.SparseCategoricalCrossentropy(), [(YS, PC, SW), (YS[:1], PC[:1])], 0.465774),
    (lambda: M.SparseCategoricalCrossentropy(ignore_class=0, from_logits=True), [(YS, PC)], 0.554568),
    (lambda: M.IoU(num_classes=3, target_class_ids=[0, 2]), [(YI, PI), (YI[:3], PI[:3], SWI[:3])], 0.433333),
    (lambda: M.IoU(num_classes=3, target_class_ids=[1], ignore_class=0), [(YI, PI)], 0.333333),
    (lambda: M.IoU(num_classes=3, target_class_ids=[0, 1, 2], sparse_y_pred=False), [(YI[:3], PC)], 0.166667),
    (lambda: M.MeanIoU(num_classes=3), [(YI, PI, SWI)], 0.130952),     # int64 counts: weight 0.5 counts 0
    (lambda: M.MeanIoU(num_classes=4), [(YI, PI)], 0.361111),          # class 3 never seen: not averaged
    (lambda: M.MeanIoU(num_classes=3), [(YI.reshape(2, 3), PI.reshape(2, 3), SWI.reshape(2, 3))], 0.130952),
    (lambda: M.BinaryIoU(), [(YB, PB), (YB[:1], PB[:1], [[1, 2, 3, 4]])], 0.894444),
    (lambda: M.BinaryIoU(target_class_ids=[1], threshold=0.3), [(YB, PB)], 0.5),   # 0.3 itself is class 1
    (lambda: M.OneHotIoU(num_classes=3, target_class_ids=[0, 2]), [(YC, PC, SW)], 0.5),
    (lambda: M.OneHotMeanIoU(num_classes=3), [(YC, PC)], 0.5),
    (lambda: M.R2Score(), [(YR, PR)], 0.801648),
    (lambda: M.R2Score(), [(YR[:2], PR[:2], [1.0, 2.0]), (YR[2:], PR[2:])], 0.809103),
    (lambda: M.R2Score(class_aggregation=None), [(YR, PR)], [0.903297, 0.7]),
    (lambda: M.R2Score(class_aggregation="variance_weighted_average"), [(YR, PR)], 0.808187),
    (lambda: M.R2Score(num_regressors=1), [(YR, PR)], 0.76859),
    (lambda: M.R2Score(num_regressors=3), [(YR, PR)], 0.652885),
    (lambda: M.R2Score(class_aggregation=None), [(np.ones((3, 1), np.float32), [[1.0], [1.0], [2.0]])], [0.0]),
    (lambda: M.PearsonCorrelation(), [(YQ, PQ), (YQ[:1], PQ[:1] * 2, [3.0])], 0.932034),
    (lambda: M.ConcordanceCorrelation(), [(YQ, PQ, [1.0, 2.0])], 0.703963),
])
def test_metrics_accumulate_as_keras(make, updates, expected):
    metric = make()
    _close(_run(metric, *updates), expected)
    metric.reset_state()
    _close(_run(metric, *updates), expected)     # reset_state forgets everything, variables made lazily too


@pytest.mark.parametrize("value, expected", [
    (lambda: M.KLD(YC, PC), [0.105358, 0.916288, 0.510823]),
    (lambda: M.MAE(YB, PB), [0.25, 0.4]),
    (lambda: M.MAPE(YB + 1, PB), [72.5, 76.250008]),
    (lambda: M.MSE(YB, PB), [0.075, 0.225]),
    (lambda: M.MSLE(YB, PB), [0.034703, 0.102413]),
    (lambda: M.categorical_focal_crossentropy(YC, PC), [0.000263, 0.082466, 0.020433]),
    (lambda: M.pearson_correlation(YQ, PQ), [0.9811, 0.735767]),
    (lambda: M.pearson_correlation(YQ, PQ, axis=0), [-1.0, 1.0, 1.0, -1.0]),
    (lambda: M.concordance_correlation(YQ, PQ), [0.969031, 0.571429]),
    (lambda: L.Dice()(YB, PB), 0.361111),
    (lambda: L.Dice(axis=1)(YB, PB), 0.366873),
    (lambda: L.Dice(axis=1, reduction="sum")(YB, PB, sample_weight=[1.0, 3.0]), 1.674923),
    (lambda: L.Dice(axis=1, reduction="none")(YB, PB), [0.263158, 0.470588]),
    (lambda: L.Dice()(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32)), 1.0),
    (lambda: L.dice(YB, PB, axis=1), [0.263158, 0.470588]),
    (lambda: L.Tversky()(YB, PB), 0.361111),
    (lambda: L.Tversky(alpha=0.9, beta=0.1)(YB, PB), 0.413265),      # alpha weighs the false negatives
    (lambda: L.Tversky(alpha=0.2, beta=0.8, axis=1, reduction="none")(YB, PB), [0.23913, 0.407895]),
    (lambda: L.Tversky()(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32)), 1.0),
    (lambda: L.tversky(YB, PB, alpha=0.3, beta=0.7), 0.331395),
    (lambda: L.CategoricalFocalCrossentropy()(YC, PC), 0.034388),
    (lambda: L.CategoricalFocalCrossentropy(alpha=0.5, gamma=1.0)(YC, PC, sample_weight=SW), 0.160617),
    (lambda: L.CategoricalFocalCrossentropy(from_logits=True, label_smoothing=0.1, reduction="none")(YC, PC * 3),
     [0.039674, 0.109203, 0.035874]),
    (lambda: L.CategoricalFocalCrossentropy(reduction="none")(YC, PC * 2), [0.000263, 0.082466, 0.020433]),
    (lambda: L.categorical_focal_crossentropy(YC, PC, alpha=0.5, gamma=3.0), [5.3e-05, 0.098959, 0.016346]),
    (lambda: L.CategoricalGeneralizedCrossEntropy()(YS, PC), 0.42951),
    (lambda: L.CategoricalGeneralizedCrossEntropy(q=0.8, reduction="none")(YS, PC), [0.101042, 0.649438, 0.419325]),
    (lambda: L.categorical_generalized_cross_entropy(YS, PC, q=0.3), [0.103713, 0.801141, 0.473609]),
])
def test_functions_and_losses_as_keras(value, expected):
    _close(value(), expected)


def test_argument_errors_as_keras():
    with pytest.raises(ValueError, match=r"^R2Score expects 2D inputs with shape \(batch_size, output_dim\). Received "
                                         r"input shapes: y_pred.shape=\(4,\) and y_true.shape=\(4,\).$"):
        M.R2Score().update_state(YR[:, 0], PR[:, 0])
    with pytest.raises(ValueError, match=r"^Invalid value for argument `class_aggregation`. Expected one of \(None, "
                                         r"'uniform_average', 'variance_weighted_average'\). Received: "
                                         r"class_aggregation=x$"):
        M.R2Score(class_aggregation="x")
    with pytest.raises(ValueError, match=r"^q must be in the interval \(0, 1\)$"):
        L.CategoricalGeneralizedCrossEntropy(q=0.0)


@pytest.mark.parametrize("make, config", [
    (lambda: M.BinaryCrossentropy(), {"name": "binary_crossentropy", "dtype": "float32", "from_logits": False,
                                      "label_smoothing": 0}),
    (lambda: M.CategoricalCrossentropy(), {"name": "categorical_crossentropy", "dtype": "float32",
                                           "from_logits": False, "label_smoothing": 0, "axis": -1}),
    (lambda: M.SparseCategoricalCrossentropy(), {"name": "sparse_categorical_crossentropy", "dtype": "float32",
                                                 "from_logits": False, "ignore_class": None, "axis": -1}),
    (lambda: M.IoU(3, [0, 2], name="io_u"), {"name": "io_u", "dtype": "int64", "num_classes": 3,
                                             "target_class_ids": [0, 2], "ignore_class": None,
                                             "sparse_y_true": True, "sparse_y_pred": True, "axis": -1}),
    (lambda: M.MeanIoU(3, name="m"), {"num_classes": 3, "name": "m", "dtype": "int64", "ignore_class": None,
                                      "sparse_y_true": True, "sparse_y_pred": True, "axis": -1}),
    (lambda: M.BinaryIoU(name="b"), {"target_class_ids": [0, 1], "threshold": 0.5, "name": "b", "dtype": "int64"}),
    (lambda: M.OneHotIoU(3, [0], name="o"), {"num_classes": 3, "target_class_ids": [0], "name": "o",
                                             "dtype": "int64", "ignore_class": None, "sparse_y_pred": False,
                                             "axis": -1}),
    (lambda: M.OneHotMeanIoU(3, name="o"), {"num_classes": 3, "name": "o", "dtype": "int64", "ignore_class": None,
                                            "sparse_y_pred": False, "axis": -1}),
    (lambda: M.R2Score(), {"name": "r2_score", "dtype": "float32", "class_aggregation": "uniform_average",
                           "num_regressors": 0}),
    (lambda: M.PearsonCorrelation(), {"name": "pearson_correlation", "dtype": "float32", "axis": -1}),
    (lambda: M.ConcordanceCorrelation(), {"name": "concordance_correlation", "dtype": "float32", "axis": -1}),
    (lambda: L.Dice(), {"name": "dice", "reduction": "sum_over_batch_size", "axis": None}),
    (lambda: L.Tversky(), {"name": "tversky", "reduction": "sum_over_batch_size", "alpha": 0.5, "beta": 0.5,
                           "axis": None}),
    (lambda: L.CategoricalFocalCrossentropy(), {"name": "categorical_focal_crossentropy",
                                                "reduction": "sum_over_batch_size", "from_logits": False,
                                                "label_smoothing": 0.0, "axis": -1, "alpha": 0.25, "gamma": 2.0}),
    (lambda: L.CategoricalGeneralizedCrossEntropy(), {"name": "categorical_generalized_cross_entropy",
                                                      "reduction": "sum_over_batch_size", "q": 0.5}),
])
def test_configs_in_keras_order_and_round_trip(make, config):
    made = make()
    got = made.get_config()
    assert list(got.items()) == list(config.items())
    assert type(made).from_config(got).get_config() == got


def test_names_variables_and_lookup():
    assert M.IoU(3, [0]).name.startswith("io_u") and M.OneHotMeanIoU(3).name.startswith("one_hot_mean_io_u")
    mean_iou = M.MeanIoU(num_classes=3, name="mean_io_u")
    assert [(v.name, v.dtype, v.shape.as_list()) for v in mean_iou.variables] == \
        [("mean_io_u/total_confusion_matrix:0", tf.int64, [3, 3])]
    r2 = M.R2Score()
    assert len(r2.variables) == 1       # num_samples; the per-output sums come with the first batch
    r2.update_state(np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32))
    assert [v.shape.as_list() for v in r2.variables] == [[], [3], [3], [3], [3]]
    assert isinstance(M.get("R2Score"), M.R2Score) and isinstance(M.get("BinaryCrossentropy"), M.BinaryCrossentropy)
    assert M.get("pearson_correlation") is M.pearson_correlation
    assert isinstance(L.get("Dice"), L.Dice) and L.get("tversky") is L.tversky


# -- rates at an operating point -------------------------------------------------------------------------
def _scores():
    rng = np.random.default_rng(0)
    y = (rng.random(40) > 0.5).astype(np.float32)
    p = np.clip(y * 0.3 + rng.random(40) * 0.7, 0, 1).astype(np.float32)
    w = rng.random(40).astype(np.float32)
    yc = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 30)]
    pc = rng.random((30, 3)).astype(np.float32)
    return y, p, w, yc, pc


# (class, target -> result) for targets 0.2/0.5/0.8/1.0, then: weighted in two updates (target 0.6),
# num_thresholds=7, num_thresholds=1, class_id=1 (target 0.4).
OPERATING_POINTS = {
    "SensitivityAtSpecificity": ([1.0, 1.0, 0.875, 0.541667], [1.0, 1.0, 0.791667, 0.875]),
    "SpecificityAtSensitivity": ([1.0, 1.0, 0.875, 0.75], [0.930136, 0.9375, 0.9375, 0.681818]),
    "PrecisionAtRecall": ([1.0, 1.0, 0.913043, 0.857143], [0.939805, 0.95, 0.95, 0.416667]),
    "RecallAtPrecision": ([1.0, 1.0, 1.0, 0.541667], [1.0, 1.0, 0.791667, 0.75]),
}
ARGUMENTS = {"SensitivityAtSpecificity": "specificity", "SpecificityAtSensitivity": "sensitivity",
             "PrecisionAtRecall": "recall", "RecallAtPrecision": "precision"}


@pytest.mark.parametrize("class_name", sorted(OPERATING_POINTS))
def test_rates_at_an_operating_point_as_keras(class_name):
    cls = getattr(M, class_name)
    y, p, w, yc, pc = _scores()
    at_targets, variants = OPERATING_POINTS[class_name]
    for target, expected in zip((0.2, 0.5, 0.8, 1.0), at_targets):
        _close(_run(cls(target), (y, p)), expected)
    _close(_run(cls(0.6), (y[:20], p[:20], w[:20]), (y[20:], p[20:])), variants[0])
    _close(_run(cls(0.6, num_thresholds=7), (y, p)), variants[1])
    _close(_run(cls(0.6, num_thresholds=1), (y, p)), variants[2])
    _close(_run(cls(0.4, class_id=1), (yc, pc)), variants[3])
    _close(cls(0.5).result(), 0.0)
    argument = ARGUMENTS[class_name]
    metric = cls(0.5, name="x")
    assert list(metric.get_config().items()) == [("name", "x"), ("dtype", "float32"), ("class_id", None),
                                                 ("num_thresholds", 200), (argument, 0.5)]
    assert [v.name for v in metric.variables] == ["x/true_positives:0", "x/false_positives:0",
                                                  "x/true_negatives:0", "x/false_negatives:0"]
    with pytest.raises(ValueError, match=rf"^Argument `{argument}` must be in the range \[0, 1\]. Received: "
                                         rf"{argument}=1.5$"):
        cls(1.5)
    with pytest.raises(ValueError, match=r"^Argument `num_thresholds` must be an integer > 0. Received: "
                                         r"num_thresholds=0$"):
        cls(0.5, num_thresholds=0)


def test_ctc_as_keras():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(2, 6, 4)).astype(np.float32)
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    labels = np.array([[1, 2, 2, 0], [3, 1, 0, 0]], np.int32)     # 0 pads (and is the blank)
    _close(L.ctc(labels, probs), [4.8993034, 4.47818])             # y_pred is taken as logits, as Keras takes it
    _close(L.ctc(labels, logits), [4.801914, 6.465449])
    _close(L.CTC()(labels, probs), 4.6887417)
    _close(L.CTC()(np.array([[1, 2]], np.int64), np.zeros((1, 3, 4), np.float32), sample_weight=[2.0]), 5.0988903)
    assert L.CTC().get_config() == {"name": "ctc", "reduction": "sum_over_batch_size"}
    with pytest.raises(ValueError, match=r"^Targets `y_true` are expected to be a tensor of shape `\(batch_size, "
                                         r"max_length\)` in integer format. Received: y_true.shape=\(2,\)$"):
        L.ctc(np.zeros((2,)), np.zeros((2, 3, 4)))
    with pytest.raises(ValueError, match=r"^Logits `y_pred` are expected to be a tensor of shape `\(batch_size, "
                                         r"max_length, num_classes\)`. Received: y_pred.shape=\(2, 3\)$"):
        L.ctc(np.zeros((2, 3)), np.zeros((2, 3)))


def test_reduction_names():
    reduction = L.Reduction
    assert (reduction.AUTO, reduction.NONE, reduction.SUM, reduction.SUM_OVER_BATCH_SIZE) == \
        ("auto", "none", "sum", "sum_over_batch_size")
    assert reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")
    assert reduction.validate("sum") is None
    with pytest.raises(ValueError, match=r"""^Invalid Reduction Key: x. Expected keys are "\('auto', 'none', 'sum', """
                                         r"""'sum_over_batch_size'\)"$"""):
        reduction.validate("x")


def test_circle_as_keras():
    rng = np.random.default_rng(3)
    emb = rng.normal(size=(6, 4)).astype(np.float32)
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    labels = np.array([0, 1, 0, 2, 1, 0], np.int32)
    ref = rng.normal(size=(5, 4)).astype(np.float32)
    ref_unit = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    ref_labels = np.array([0, 0, 1, 2, 2], np.int32)
    _close(L.circle(labels, unit), [276.89313, 320.15125, 264.23441, 0.0, 282.30548, 189.60033])
    _close(L.circle(labels, unit, gamma=10, margin=0.25), [36.67118, 41.97046, 34.93451, 0.0, 37.42157, 25.63125])
    _close(L.circle(labels, unit, remove_diagonal=False),
           [276.89313, 320.15125, 264.23441, 37.70477, 282.30548, 189.60033])
    _close(L.circle(labels, unit, ref_labels=ref_labels, ref_embeddings=ref_unit),
           [218.74677, 144.71361, 28.50263, 40.97736, 73.52202, 21.26416])
    _close(L.Circle(reduction="none")(labels, emb), [9670.59863, 801.06128, 9604.49707, 0.0, 801.06128, 1527.08264])
    _close(L.Circle()(labels, emb), 4480.86035)      # the mean over the rows with a positive loss (5 of 6)
    _close(L.Circle(reduction="sum", gamma=5.0)(labels, emb), 1402.68323)
    _close(L.Circle(gamma=5.0)(labels, emb, sample_weight=[1, 2, 0, 1, 1, 3]), 208.84456)
    _close(L.Circle(gamma=5.0)(np.array([0, 1, 2, 3], np.int32), emb[:4]), 0.0)   # no positive pair at all
    assert list(L.Circle().get_config().items()) == [("name", "circle"), ("reduction", "sum_over_batch_size"),
                                                     ("gamma", 80.0), ("margin", 0.4), ("remove_diagonal", True)]
