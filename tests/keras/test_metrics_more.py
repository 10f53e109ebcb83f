"""More keras.metrics: confusion-matrix metrics (Precision, Recall, AUC, TP/FP/TN/FN, F-scores), top-k accuracy
and regression metrics, against NumPy and values printed by TF 2.21's Keras for the same inputs."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras
M = keras.metrics

# The same draws as the script that printed TF 2.21's values (legacy RandomState is stable across NumPy versions).
_rng = np.random.RandomState(0)
Y_BIN = (_rng.rand(40) > 0.4).astype("float32")
P_BIN = np.clip(0.35 * Y_BIN + _rng.rand(40) * 0.65, 0, 1).astype("float32")
P_BIN[:4] = [0.0, 1.0, 0.5, 0.3]                 # scores on the edges of the threshold buckets
SW = _rng.rand(40).astype("float32")
Y_MULTI = (_rng.rand(20, 3) > 0.5).astype("float32")
P_MULTI = _rng.rand(20, 3).astype("float32")
LABELS = _rng.randint(0, 5, 12)
ONEHOT = np.eye(5, dtype="float32")[LABELS]
SCORES = _rng.rand(12, 5).astype("float32")
SCORES[0] = [0.2, 0.2, 0.2, 0.1, 0.1]            # ties straddling the top-k boundary
REG_TRUE = _rng.randn(10, 3).astype("float32")
REG_PRED = _rng.randn(10, 3).astype("float32")

HALVES = [(Y_BIN[:25], P_BIN[:25]), (Y_BIN[25:], P_BIN[25:])]
WEIGHTED_HALVES = [(Y_BIN[:25], P_BIN[:25], SW[:25]), (Y_BIN[25:], P_BIN[25:], SW[25:])]
LOGITS = np.log(P_BIN + 1e-3) - np.log(1.001 - P_BIN)


def _result(metric, *batches):
    for batch in batches:
        metric.update_state(*batch)
    return np.asarray(metric.result())


# (metric, batches, result printed by TF 2.21's Keras)
TF_VALUES = [
    (lambda: M.Precision(), HALVES, 0.9),
    (lambda: M.Precision(), WEIGHTED_HALVES, 0.895807),
    (lambda: M.Precision(thresholds=[0.0, 0.3, 0.5, 0.7, 1.0]), HALVES, [0.7948718, 0.8823529, 0.9, 1.0, 0.0]),
    (lambda: M.Precision(thresholds=[0.0, 0.5, 1.0]), WEIGHTED_HALVES, [0.7977179, 0.895807, 0.0]),
    (lambda: M.Recall(), HALVES, 0.5625),
    (lambda: M.Recall(thresholds=[0.2, 0.6]), WEIGHTED_HALVES, [0.9806671, 0.3644613]),
    (lambda: M.Precision(top_k=2), [(Y_MULTI, P_MULTI)], 0.5),
    (lambda: M.Recall(top_k=1), [(Y_MULTI, P_MULTI)], 0.2647059),
    (lambda: M.Precision(class_id=1), [(Y_MULTI, P_MULTI)], 0.4),
    (lambda: M.Recall(class_id=2, top_k=2), [(Y_MULTI, P_MULTI)], 0.7272727),
    (lambda: M.Precision(), [(Y_MULTI, P_MULTI, SW[:20])], 0.5561128),
    (lambda: M.TruePositives(), WEIGHTED_HALVES, 8.9343166),
    (lambda: M.TruePositives(thresholds=[0.25, 0.5, 0.75]), HALVES, [31.0, 18.0, 7.0]),
    (lambda: M.FalsePositives(), WEIGHTED_HALVES, 1.0391673),
    (lambda: M.FalsePositives(thresholds=[0.25, 0.5, 0.75]), HALVES, [4.0, 2.0, 0.0]),
    (lambda: M.TrueNegatives(), WEIGHTED_HALVES, 3.0509577),
    (lambda: M.TrueNegatives(thresholds=[0.25, 0.5, 0.75]), HALVES, [4.0, 6.0, 8.0]),
    (lambda: M.FalseNegatives(), WEIGHTED_HALVES, 7.5134425),
    (lambda: M.FalseNegatives(thresholds=[0.25, 0.5, 0.75]), HALVES, [1.0, 14.0, 25.0]),
    (lambda: M.AUC(), HALVES, 0.765625),
    (lambda: M.AUC(), WEIGHTED_HALVES, 0.7323415),
    (lambda: M.AUC(curve="PR"), HALVES, 0.9286805),
    (lambda: M.AUC(curve="PR"), WEIGHTED_HALVES, 0.9207075),
    (lambda: M.AUC(summation_method="minoring", num_thresholds=50), HALVES, 0.7460938),
    (lambda: M.AUC(curve="PR", summation_method="majoring"), WEIGHTED_HALVES, 0.9265954),
    (lambda: M.AUC(curve="PRGAIN"), HALVES, 0.3713664),
    (lambda: M.AUC(thresholds=[0.1, 0.4, 0.45, 0.8]), HALVES, 0.7128906),
    (lambda: M.AUC(from_logits=True), [(Y_BIN, LOGITS)], 0.765625),
    (lambda: M.AUC(multi_label=True), [(Y_MULTI, P_MULTI)], 0.4053713),
    (lambda: M.AUC(multi_label=True, num_labels=3, label_weights=[1.0, 2.0, 0.5], curve="PR"),
     [(Y_MULTI, P_MULTI, SW[:20])], 0.5117777),
    (lambda: M.AUC(label_weights=[1.0, 2.0, 0.5]), [(Y_MULTI, P_MULTI)], 0.3648732),
    (lambda: M.TopKCategoricalAccuracy(k=2), [(ONEHOT, SCORES)], 0.4166667),
    (lambda: M.TopKCategoricalAccuracy(), [(ONEHOT, SCORES, SW[:12])], 1.0),
    (lambda: M.SparseTopKCategoricalAccuracy(k=2), [(LABELS, SCORES)], 0.4166667),
    (lambda: M.SparseTopKCategoricalAccuracy(k=1), [(LABELS[:, None], SCORES)], 0.0833333),
    (lambda: M.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True), [(LABELS, np.argsort(-SCORES, -1))],
     0.4166667),
    (lambda: M.CosineSimilarity(axis=0), [(REG_TRUE, REG_PRED)], 0.1261141),
    (lambda: M.KLDivergence(), [(np.abs(REG_TRUE), np.abs(REG_PRED))], 1.0351547),
    (lambda: M.Poisson(), [(np.abs(REG_TRUE), np.abs(REG_PRED))], 1.3889679),
    (lambda: M.F1Score(), [(Y_MULTI, P_MULTI)], [0.3333333] * 3),
    (lambda: M.F1Score(average="micro"), [(Y_MULTI, P_MULTI)], 0.3333333),
    (lambda: M.F1Score(average="macro"), [(ONEHOT, SCORES)], 0.1),
    (lambda: M.FBetaScore(beta=2.0, threshold=0.4), [(Y_MULTI, P_MULTI, SW[:20])], [0.37817, 0.502735, 0.6275917]),
    (lambda: M.FBetaScore(average="micro", beta=2.0, threshold=0.4), [(Y_MULTI, P_MULTI, SW[:20])], 0.4985852),
    (lambda: M.FBetaScore(average="macro", beta=2.0, threshold=0.4), [(Y_MULTI, P_MULTI, SW[:20])], 0.5028322),
    (lambda: M.FBetaScore(average="weighted", beta=2.0, threshold=0.4), [(Y_MULTI, P_MULTI, SW[:20])], 0.4943434),
]


@pytest.mark.parametrize("make, batches, expected", TF_VALUES)
def test_metrics_match_keras(make, batches, expected):
    np.testing.assert_allclose(_result(make(), *batches), expected, rtol=2e-6, atol=1e-6)


# Regression metrics over two batches (the second weighted by SW[:4]), as printed by TF 2.21's Keras.
REGRESSION_VALUES = {"RootMeanSquaredError": 1.347127, "MeanSquaredError": 1.814751, "MeanAbsoluteError": 1.0648327,
                     "MeanAbsolutePercentageError": 210.333725, "MeanSquaredLogarithmicError": 0.2188218,
                     "CosineSimilarity": 0.2753637, "LogCoshError": 0.5816663, "Hinge": 0.8864895,
                     "SquaredHinge": 1.4574506, "CategoricalHinge": 2.0330822, "KLDivergence": 4.8103619}


@pytest.mark.parametrize("class_name, expected", REGRESSION_VALUES.items())
def test_regression_metrics_match_keras(class_name, expected):
    metric = getattr(M, class_name)()
    value = _result(metric, (REG_TRUE[:6], REG_PRED[:6]), (REG_TRUE[6:], REG_PRED[6:], SW[:4]))
    np.testing.assert_allclose(value, expected, rtol=2e-6)


def test_confusion_counts_and_auc_match_numpy():
    y, p = Y_BIN.astype(bool), P_BIN
    for threshold in (0.25, 0.5, 0.75):
        predicted = p > threshold
        counts = [np.sum(predicted & y), np.sum(predicted & ~y), np.sum(~predicted & ~y), np.sum(~predicted & y)]
        metrics = [M.TruePositives(threshold), M.FalsePositives(threshold), M.TrueNegatives(threshold),
                   M.FalseNegatives(threshold)]
        assert [float(_result(m, (Y_BIN, P_BIN))) for m in metrics] == counts
        assert float(_result(M.Precision(threshold), (Y_BIN, P_BIN))) == pytest.approx(counts[0] / (counts[0] +
                                                                                                    counts[1]))
        assert float(_result(M.Recall(threshold), (Y_BIN, P_BIN))) == pytest.approx(counts[0] / (counts[0] +
                                                                                                 counts[3]))
    # With many thresholds the ROC AUC approaches the exact probability that a positive outscores a negative.
    positives, negatives = p[y], p[~y]
    exact = np.mean((positives[:, None] > negatives[None]) + 0.5 * (positives[:, None] == negatives[None]))
    assert float(_result(M.AUC(num_thresholds=2000), (Y_BIN, P_BIN))) == pytest.approx(exact, abs=0.01)


def test_top_k_matches_numpy():
    for k in (1, 2, 3):
        higher = (SCORES > SCORES[np.arange(12), LABELS][:, None]).sum(-1)
        expected = np.mean(higher < k)
        assert float(_result(M.SparseTopKCategoricalAccuracy(k=k), (LABELS, SCORES))) == pytest.approx(expected)
        np.testing.assert_allclose(M.top_k_categorical_accuracy(ONEHOT, SCORES, k=k).numpy(), higher < k)


def test_rmse_is_root_of_pooled_mean():
    rmse = M.RootMeanSquaredError()
    rmse.update_state([[0.0], [0.0]], [[1.0], [3.0]])
    rmse.update_state([[1.0]], [[1.0]])
    assert float(rmse.result()) == pytest.approx(np.sqrt(10 / 3))


def test_names_and_defaults():
    keras.backend.clear_session()
    assert M.Precision().name == "precision" and M.Precision().name == "precision_1"
    assert M.AUC().name == "auc" and M.Recall(name="r").name == "r"
    defaults = {M.TopKCategoricalAccuracy: "top_k_categorical_accuracy",
                M.SparseTopKCategoricalAccuracy: "sparse_top_k_categorical_accuracy",
                M.RootMeanSquaredError: "root_mean_squared_error", M.MeanSquaredError: "mean_squared_error",
                M.MeanAbsoluteError: "mean_absolute_error",
                M.MeanAbsolutePercentageError: "mean_absolute_percentage_error",
                M.CosineSimilarity: "cosine_similarity", M.LogCoshError: "logcosh", M.F1Score: "f1_score",
                M.FBetaScore: "fbeta_score"}
    for cls, name in defaults.items():
        assert cls().name == name and cls().name == name            # fixed default names are not made unique
    assert M.TopKCategoricalAccuracy().k == 5
    auc = M.AUC()
    assert auc.num_thresholds == 200 and auc.curve == "ROC" and auc.summation_method == "interpolation"
    assert len(auc.thresholds) == 200 and auc.thresholds[0] < 0 and auc.thresholds[-1] > 1
    assert isinstance(M.get("precision"), M.Precision) and isinstance(M.get("auc"), M.AUC)
    assert isinstance(M.get("log_cosh_error"), M.LogCoshError) and isinstance(M.get("mape"),
                                                                            M.MeanAbsolutePercentageError)
    assert isinstance(M.get("top_k_categorical_accuracy"), M.TopKCategoricalAccuracy)
    with pytest.raises(ValueError, match="Could not interpret metric identifier"):
        M.get("rmse")                              # Keras 3 has no such alias


def test_argument_errors():
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        M.Precision(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match="num_thresholds"):
        M.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="Invalid AUC curve value"):
        M.AUC(curve="DET")
    with pytest.raises(ValueError, match="Invalid AUC summation method value"):
        M.AUC(summation_method="trapezoid")
    with pytest.raises(ValueError, match="`num_labels` is needed only when `multi_label` is True"):
        M.AUC(num_labels=3)
    with pytest.raises(ValueError, match="class_id is provided"):
        M.Precision(class_id=0).update_state([1.0, 0.0], [0.7, 0.2])
    with pytest.raises(ValueError, match="Invalid `average`"):
        M.F1Score(average="samples")
    with pytest.raises(ValueError, match="Invalid `beta`"):
        M.FBetaScore(beta=2)


def test_update_result_reset_eagerly_and_in_tf_function():
    metrics = [M.Precision(), M.Recall(), M.AUC(), M.TruePositives(), M.RootMeanSquaredError(),
               M.SparseTopKCategoricalAccuracy(k=1)]

    def update(y, p):
        for m in metrics[:5]:
            m.update_state(y, p)
        metrics[5].update_state(tf.cast(y, tf.int32), tf.stack([1.0 - p, p], axis=-1))

    traced = tf.function(update)
    for step in (update, traced):
        for m in metrics:
            m.reset_state()
        for first, last in ((0, 25), (25, 40)):
            step(tf.constant(Y_BIN[first:last]), tf.constant(P_BIN[first:last]))
        results = [float(m.result()) for m in metrics]
        np.testing.assert_allclose(results[:3], [0.9, 0.5625, 0.765625], rtol=1e-6)      # as TF 2.21's Keras
        assert results[3] == np.sum((P_BIN > 0.5) & (Y_BIN == 1))
        assert results[4] == pytest.approx(np.sqrt(np.mean((Y_BIN - P_BIN) ** 2)), rel=1e-5)
        tied = P_BIN == 0.5                      # both classes score 0.5: each is in the top 1
        assert results[5] == pytest.approx(np.mean(((P_BIN > 0.5) == (Y_BIN == 1)) | tied))
    for m in metrics:
        m.reset_state()
        assert float(m.result()) == 0.0
    assert [v.shape for v in metrics[2].variables] == [(200,)] * 4


def test_compile_string_names_appear_in_history():
    keras.backend.clear_session()                # unnamed metrics get unique names, as in a fresh Keras session
    rng = np.random.RandomState(1)
    x = rng.randn(64, 4).astype("float32")
    y = (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype("float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy",
                  metrics=["precision", "AUC", keras.metrics.Recall(), keras.metrics.AUC(curve="PR", name="pr_auc"),
                           "true_positives", "root_mean_squared_error", "mape", "log_cosh_error", "hinge"])
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    # The keys TF 2.21's Keras logs for the same compile() call.
    assert sorted(history.history) == ['AUC', 'hinge', 'log_cosh_error', 'loss', 'mape', 'pr_auc', 'precision',
                                       'recall', 'root_mean_squared_error', 'true_positives']
    assert 0.0 <= history.history["AUC"][-1] <= 1.0 and len(history.history["precision"]) == 2
    evaluated = model.evaluate(x, y, verbose=0, return_dict=True)
    probabilities = model.predict(x, verbose=0)[:, 0]
    assert evaluated["true_positives"] == np.sum((probabilities > 0.5) & (y[:, 0] == 1))
    assert evaluated["root_mean_squared_error"] == pytest.approx(np.sqrt(np.mean((probabilities - y[:, 0]) ** 2)),
                                                                 rel=1e-4)


def test_compile_top_k_and_f1_names():
    rng = np.random.RandomState(2)
    x = rng.randn(64, 4).astype("float32")
    labels = rng.randint(0, 5, 64)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="softmax")])
    model.compile(optimizer="adam", loss="categorical_crossentropy",
                  metrics=["top_k_categorical_accuracy", keras.metrics.F1Score(average="macro")])
    history = model.fit(x, np.eye(5, dtype="float32")[labels], epochs=1, batch_size=16, verbose=0)
    assert sorted(history.history) == ["f1_score", "loss", "top_k_categorical_accuracy"]
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["sparse_top_k_categorical_accuracy"])
    assert "sparse_top_k_categorical_accuracy" in model.fit(x, labels, epochs=1, verbose=0).history
