"""`keras.callbacks.TensorBoard`: training logs as TensorBoard event files, in Keras 3's layout.

    model.fit(x, y, validation_data=..., callbacks=[keras.callbacks.TensorBoard("logs", histogram_freq=1)])

writes `logs/train/` and `logs/validation/` event files holding what Keras 3 writes:

- `train/`: the model's conceptual graph (tag `keras`, the model's JSON config, plugin `graph_keras_model`)
  when `write_graph`; per epoch `epoch_<name>` for each training log (`epoch_loss`, `epoch_accuracy`, …)
  and `epoch_learning_rate`; every `histogram_freq` epochs a histogram `<weight path>/histogram` of each
  weight (and an image `<weight path>/image` with `write_images`); with `update_freq` "batch" or N,
  `batch_<name>` every N training batches (and the step of custom `tf.summary` calls in the model);
- `validation/`: `epoch_<name>` of each `val_` log, and `evaluation_<name>_vs_iterations` at the
  optimizer's iteration count each time validation ends.

`profile_batch` traces the graphs of the batches in range (`tf.summary.trace_on`/`trace_export`, tag
`batch_<stop>`); tensorflux has no profiler, so no profile is written. Batch hooks are only attached when
`update_freq`, `write_steps_per_second` or `profile_batch` needs them, so the default callback adds no
work per batch.
"""
import os
import time

import numpy as np

from .callbacks import Callback

__all__ = ["TensorBoard"]


# SummaryMetadata{plugin_data{plugin_name: "graph_keras_model", content: "1"}} in protobuf's wire format:
# the plugin that draws a Keras model's config as TensorBoard's conceptual graph (format version 1).
_PLUGIN = b"\x0a\x11graph_keras_model\x12\x011"
_KERAS_MODEL_METADATA = b"\x0a" + bytes([len(_PLUGIN)]) + _PLUGIN


def _summary():
    import tensorflux.summary as summary  # the public API: this room is built on it
    return summary


def _float(value):
    value = value.numpy() if hasattr(value, "numpy") else value
    return float(np.asarray(value))


class TensorBoard(Callback):
    """Writes TensorBoard logs (see the module docstring for what and where)."""

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        if embeddings_freq:
            raise NotImplementedError("TensorBoard(embeddings_freq=...) writes embedding checkpoints for the "
                                      "Projector, which tensorflux does not support; pass embeddings_freq=0.")
        if update_freq != "epoch" and update_freq != "batch" and \
                (not isinstance(update_freq, int) or isinstance(update_freq, bool) or update_freq < 1):
            raise ValueError(f"Unrecognized update_freq: {update_freq!r}. Expected 'batch', 'epoch' or a "
                             f"positive integer.")
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._start_batch, self._stop_batch = _profile_range(profile_batch)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0.0
        self._epoch_start_time = 0.0
        self._batch_start_time = 0.0
        self._is_tracing = False
        self._writers = {}
        self._pushed = []
        if self.update_freq != "epoch" or write_steps_per_second or self._start_batch > 0:
            # Instance attributes, so fit's CallbackList sees that batches are wanted only in these cases.
            self.on_train_batch_begin = self._train_batch_begin
            self.on_train_batch_end = self._train_batch_end
            self.on_test_batch_begin = self._test_batch_begin

    # -- writers --------------------------------------------------------------------------------
    def set_model(self, model):
        self.model = model
        self._log_write_dir = self.log_dir
        self._train_dir = os.path.join(self._log_write_dir, "train")
        self._val_dir = os.path.join(self._log_write_dir, "validation")
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()

    def _writer(self, which):
        if which not in self._writers:
            self._writers[which] = _summary().create_file_writer(self._train_dir if which == "train"
                                                                 else self._val_dir)
        return self._writers[which]

    def _write_keras_model_summary(self):
        """The model's config as JSON under tag `keras`: TensorBoard's conceptual graph (Sequential and
        functional models, as Keras writes it)."""
        if type(self.model).__name__ not in ("Sequential", "Functional") and \
                not getattr(self.model, "_is_graph_network", False):
            return
        try:
            config = self.model.to_json()
        except Exception:  # noqa: BLE001 (as Keras: a model that cannot be serialised just has no graph)
            return
        summary = _summary()
        with self._writer("train").as_default():
            with summary.experimental.summary_scope("keras", "graph_keras_model") as (tag, _):
                summary.write(tag, np.array(config.encode("utf-8"), dtype=object), step=0,
                              metadata=_KERAS_MODEL_METADATA)

    def _push_writer(self, which, step):
        """The default writer and step (recording every `update_freq` steps) for batch-level summaries."""
        if self.update_freq == "epoch":
            return
        summary = _summary()
        frequency = self.update_freq
        contexts = (self._writer(which).as_default(step), summary.record_if(lambda: step % frequency == 0))
        for c in contexts:
            c.__enter__()
        self._pushed.append(contexts)

    def _pop_writer(self):
        if self.update_freq == "epoch" or not self._pushed:
            return
        writer_context, record_context = self._pushed.pop()
        record_context.__exit__(None, None, None)
        writer_context.__exit__(None, None, None)

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()

    # -- hooks ----------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0.0
        self._push_writer("train", self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        if self._is_tracing:
            self._stop_trace()
        self._close_writers()

    def on_test_begin(self, logs=None):
        self._push_writer("val", self._global_test_batch)

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations") and logs:
            summary = _summary()
            step = int(_float(optimizer.iterations))
            with self._writer("val").as_default():
                for name, value in logs.items():
                    summary.scalar(f"evaluation_{name}_vs_iterations", _float(value), step=step)
        self._pop_writer()

    def _train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer("train", self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()
        if self._start_batch > 0 and self._global_train_batch == self._start_batch:
            _summary().trace_on(graph=True, profiler=False)
            self._is_tracing = True

    def _train_batch_end(self, batch, logs=None):
        summary = _summary()
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start_time
            summary.scalar("batch_steps_per_second", 1.0 / elapsed if elapsed > 0 else 0.0,
                           step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar(f"batch_{name}", _float(value), step=self._global_train_batch)
        if self._is_tracing and self._global_train_batch >= self._stop_batch:
            self._stop_trace()

    def _test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer("val", self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = _float(self.model.optimizer.iterations)
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # -- what is written ------------------------------------------------------------------------
    def _stop_trace(self, batch=None):
        batch = self._stop_batch if batch is None else batch
        with self._writer("train").as_default():
            _summary().trace_export(name=f"batch_{batch}", step=batch)
        self._is_tracing = False

    def _learning_rates(self, logs):
        optimizer = getattr(self.model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if optimizer is None:
            return logs
        if hasattr(optimizer, "optimizers"):
            for opt in optimizer.optimizers:
                logs[f"learning_rate_{opt.name}"] = _float(opt.learning_rate)
        elif hasattr(optimizer, "learning_rate"):
            logs["learning_rate"] = _float(optimizer.learning_rate)
        return logs

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        summary = _summary()
        train_logs = self._learning_rates({k: v for k, v in logs.items() if not k.startswith("val_")})
        val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        if self.write_steps_per_second:
            elapsed = time.time() - self._epoch_start_time
            steps = _float(self.model.optimizer.iterations) - self._previous_epoch_iterations
            train_logs["steps_per_second"] = steps / elapsed if elapsed > 0 else 0.0
        for which, values in (("train", train_logs), ("val", val_logs)):
            if values:
                with self._writer(which).as_default():
                    for name, value in values.items():
                        summary.scalar(f"epoch_{name}", _float(value), step=epoch)

    def _log_weights(self, epoch):
        summary = _summary()
        writer = self._writer("train")
        with writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    name = _weight_path(self.model, weight).replace(":", "_")
                    summary.histogram(f"{name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{name}/image", epoch)
            writer.flush()

    def _log_weight_as_image(self, weight, tag, epoch):
        """A weight as a grayscale image, shaped as Keras shows it (kernels wide, conv filters one each)."""
        image = np.squeeze(np.asarray(weight.numpy()))
        if image.ndim == 1:
            image = image.reshape(1, image.shape[0], 1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:
            image = np.transpose(image, [2, 0, 1])[..., None]
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            _summary().image(tag, image, step=epoch)


def _weight_path(model, weight):
    """Keras 3's `weight.path`: the variable's name under the scopes it was created in (Sequential and
    subclassed models build their layers inside their own name; functional models do not)."""
    path = getattr(weight, "path", None)
    if isinstance(path, str) and path:
        return path
    name = weight.name[:-2] if weight.name.endswith(":0") else weight.name
    if type(model).__name__ == "Functional" or getattr(model, "_is_graph_network", False) and \
            type(model).__name__ != "Sequential":
        return name
    prefix = f"{model.name}/"
    return name if name.startswith(prefix) else prefix + name


def _profile_range(profile_batch):
    """(start, stop) batches of `profile_batch` (an int, a pair, or "start,stop"); (0, 0) when off."""
    if isinstance(profile_batch, str):
        profile_batch = [int(p) for p in profile_batch.split(",")]
    if isinstance(profile_batch, (list, tuple)):
        if len(profile_batch) != 2:
            raise ValueError(f"profile_batch must be a non-negative integer or 2-tuple of positive integers. "
                             f"Received: profile_batch={profile_batch!r}")
        start, stop = int(profile_batch[0]), int(profile_batch[1])
    elif isinstance(profile_batch, int) and not isinstance(profile_batch, bool):
        start = stop = profile_batch
    else:
        raise ValueError(f"profile_batch must be a non-negative integer or 2-tuple of positive integers. "
                         f"Received: profile_batch={profile_batch!r}")
    if start < 0 or stop < start:
        raise ValueError(f"profile_batch must be a non-negative integer or 2-tuple of positive integers. "
                         f"Received: profile_batch={profile_batch!r}")
    return start, stop


API = {"keras.callbacks": ["TensorBoard"]}
