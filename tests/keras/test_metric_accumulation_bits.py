"""MeanAbsolutePercentageError and its Mean accumulation give TensorFlow 2.21 / Keras 3.15's float32 bits
(per-sample `100 * mean(|(y - p) / max(|y|, eps)|, -1)`, `total += sum(values)`, `count += batch`,
`result = total / count`), eagerly and inside a tf.function, on batch sizes below and above Eigen's
packet and block sizes. Expected (total, result) pairs recorded with TensorFlow 2.21 + Keras 3.15 on the
same seeded inputs; compared exactly."""
import numpy as np
import pytest

import tensorflux as tf

RECORDED = [[40195296.0, 628051.5], [4230.12255859375, 528.7653198242188], [3272970.0, 96263.8203125],
            [381363.3125, 1906.8165283203125], [5337076.5, 83391.8203125], [9709.990234375, 1213.748779296875],
            [2787859.0, 81995.8515625], [174727.265625, 873.6363525390625], [7603468.0, 118804.1875],
            [2639.62158203125, 329.95269775390625], [7022284.5, 206537.78125], [340183.75, 1700.918701171875]]


def _cases():
    rng = np.random.default_rng(0)
    for t in range(12):
        n = [32, 4, 17, 100][t % 4]
        y_true = rng.random((n, 1)).astype(np.float32) * 0.01 + rng.random((n, 1)).astype(np.float32) * (t % 2)
        y_pred = (rng.standard_normal((n, 1)) * 3).astype(np.float32)
        yield y_true, y_pred


@pytest.mark.parametrize("index", range(12))
def test_mape_metric_total_and_result_bits(index):
    y_true, y_pred = list(_cases())[index]
    metric = tf.keras.metrics.MeanAbsolutePercentageError()
    update = tf.function(metric.update_state) if index % 2 else metric.update_state
    update(y_true, y_pred)
    update(y_true[::-1], y_pred)
    assert [float(metric.variables[0].numpy()), float(metric.result())] == RECORDED[index]
