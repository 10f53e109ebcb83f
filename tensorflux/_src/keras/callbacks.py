"""`keras.callbacks`: objects `fit` (and `evaluate`, `predict`) notify as training proceeds.

A callback sees the model (`self.model`), the loop's parameters (`self.params`: epochs, steps, verbose)
and, at each hook, the logs so far (`{"loss": 0.12, "val_loss": 0.3, …}` as Python floats). Batch-level
hooks cost a conversion of the step's results to floats, so `CallbackList` only runs them when some
callback overrides them. The built-in callbacks follow Keras's rules: EarlyStopping and
ReduceLROnPlateau wait `patience` epochs without an improvement of at least `min_delta` in `monitor`
(minimised, or maximised for accuracy/AUC names in mode "auto"); ModelCheckpoint writes `.keras`
models or weights files whose names may use `{epoch}` and any logged value; LearningRateScheduler sets the optimizer's
learning rate before each epoch. The legacy hooks `on_batch_begin`/`on_batch_end` are the default
bodies of `on_train_batch_begin`/`on_train_batch_end`, as in Keras 3.
"""
import csv
import json
import math
import os
import shutil
import warnings

import numpy as np

from ..io.atomic import atomic_write
from ..state import worker_paths as chief_files
from .models import replicas as _replicas, trainer as _trainer

__all__ = ["Callback", "CallbackList", "History", "EarlyStopping", "ModelCheckpoint", "LearningRateScheduler",
           "ReduceLROnPlateau", "LambdaCallback", "TerminateOnNaN", "CSVLogger", "BackupAndRestore"]

_BATCH_HOOKS = ("on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin", "on_test_batch_end",
                "on_predict_batch_begin", "on_predict_batch_end")


class Callback:
    """Base class: override the hooks you need; each receives the logs of its point in the loop."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass

    # The legacy hooks on_batch_begin/on_batch_end are what the training batch hooks call by default.
    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass


class CallbackList:
    """The callbacks of one `fit`/`evaluate`/`predict` call, notified together and in order."""

    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks or ())
        for callback in self.callbacks:
            if not hasattr(callback, "on_epoch_end"):
                raise TypeError(f"Each callback must be a `keras.callbacks.Callback`. Received: {callback!r}")
            callback.set_model(model)
            callback.set_params(params)
        self.wants_batches = {hook: any(_overrides(c, hook) for c in self.callbacks) for hook in _BATCH_HOOKS}

    def __getattr__(self, hook):
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def notify(*args):
            for callback in self.callbacks:
                getattr(callback, hook)(*args)
        return notify


_LEGACY_ALIAS = {"on_train_batch_begin": "on_batch_begin", "on_train_batch_end": "on_batch_end"}


def _overrides(callback, hook):
    if hook in _LEGACY_ALIAS and _overrides(callback, _LEGACY_ALIAS[hook]):
        return True
    method = getattr(type(callback), hook, None)
    return method is not None and method is not getattr(Callback, hook, None) or \
        hook in getattr(callback, "__dict__", {})


class History(Callback):
    """What `fit` returns: `history` maps each logged name to its value per epoch; `epoch` lists the epochs."""

    def __init__(self):
        super().__init__()
        self.epoch = []
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(value)


def _monitor_op(monitor, mode, callback_name):
    """(better(current, reference), initial best) for `mode` ("auto" maximises accuracy/AUC names)."""
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{callback_name} mode {mode} is unknown, fallback to auto mode.", stacklevel=3)
        mode = "auto"
    if mode == "auto":
        name = monitor.removeprefix("val_")
        mode = "max" if name.endswith(("acc", "accuracy", "auc")) or name.startswith(("acc", "auc")) else "min"
    return (np.greater, -math.inf) if mode == "max" else (np.less, math.inf)


class _Monitoring(Callback):
    """Shared by callbacks that watch one logged value for improvements of at least `min_delta`."""

    def __init__(self, monitor, mode, min_delta):
        super().__init__()
        self.monitor = monitor
        self.monitor_op, self._initial_best = _monitor_op(monitor, mode, type(self).__name__)
        self.min_delta = abs(min_delta) if self.monitor_op is np.greater else -abs(min_delta)
        self.best = self._initial_best

    def _is_improvement(self, current, reference):
        return bool(self.monitor_op(current - self.min_delta, reference))

    def _current(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"{type(self).__name__} is conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(sorted(logs or {}))}", stacklevel=3)
        return value


class EarlyStopping(_Monitoring):
    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta)
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._initial_best
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        current = self._current(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()     # the first epoch is the best so far
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            _trainer.emit(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                _trainer.emit(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(_Monitoring):
    """Saves the model after each epoch (or only when `monitor` improves, `save_best_only`): the whole
    model (`model.save`, a `.keras` name) or, with `save_weights_only=True`, its weights (`.weights.h5`).
    `filepath` may hold `{epoch}` (1-based) and logged values: `"ckpt/{epoch:02d}-{val_loss:.2f}.keras"`."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, 0)
        self.filepath = os.fspath(filepath)
        self.save_weights_only = bool(save_weights_only)
        if self.save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(f"When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                             f"must end in `.weights.h5` (Keras weights format). Received: filepath={self.filepath}")
        if not self.save_weights_only and not self.filepath.endswith(".keras"):
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer "
                             f"values")
        self.verbose, self.save_best_only, self.save_freq = verbose, save_best_only, save_freq
        self.best = initial_value_threshold     # None until a first value: any value improves on it
        self._current_epoch = 0
        self._batches_since_save = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq != "epoch":        # every `save_freq` batches, counted across epochs
            self._batches_since_save += 1
            if self._batches_since_save >= self.save_freq:
                self._batches_since_save = 0
                self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        if batch is None or "batch" in logs:
            path = self.filepath.format(epoch=epoch + 1, **logs)
        else:
            path = self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"Can save best model only with {self.monitor} available.", stacklevel=3)
            else:
                best = "None" if self.best is None else f"{self.best:.5f}"
                if self.best is not None and not self._is_improvement(current, self.best):
                    if self.verbose > 0:
                        _trainer.emit(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
                    return
                if self.verbose > 0:
                    _trainer.emit(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, "
                                  f"saving model to {path}")
                self.best = current
        elif self.verbose > 0:
            _trainer.emit(f"\nEpoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        # In a multi-worker job the chief writes `path`; the others a temporary copy they delete.
        written = chief_files.write_filepath(path)
        if self.save_weights_only:
            self.model.save_weights(written, overwrite=True)
        else:
            self.model.save(written, overwrite=True)
        chief_files.remove_temp_dir_with_filepath(path)
        if self.verbose > 0:
            _trainer.emit(f"\nEpoch {epoch + 1}: finished saving model to {path}")


class LearningRateScheduler(Callback):
    """Before each epoch sets the learning rate to `schedule(epoch, lr)` (or `schedule(epoch)`)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        try:
            lr = self.schedule(epoch, float(optimizer.learning_rate.numpy()))
        except TypeError:   # a schedule of the epoch only
            lr = self.schedule(epoch)
        lr = float(getattr(lr, "numpy", lambda: lr)())
        if not math.isfinite(lr):
            raise ValueError(f'The output of the "schedule" function should be a finite float. Got: {lr}')
        optimizer.learning_rate = lr
        if self.verbose > 0:
            _trainer.emit(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate.numpy())


class ReduceLROnPlateau(_Monitoring):
    """Multiplies the learning rate by `factor` after `patience` epochs without improvement (not below
    `min_lr`), then waits `cooldown` epochs before counting again."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        super().__init__(monitor, mode, min_delta)
        self.factor, self.patience, self.verbose = factor, patience, verbose
        self.cooldown, self.min_lr = cooldown, min_lr
        self.wait = self.cooldown_counter = 0

    def on_train_begin(self, logs=None):
        self.wait = self.cooldown_counter = 0
        self.best = self._initial_best

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = float(optimizer.learning_rate.numpy())
        current = self._current(logs)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = logs["learning_rate"]
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    optimizer.learning_rate = new_lr
                    if self.verbose > 0:
                        _trainer.emit(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class LambdaCallback(Callback):
    """A callback made of functions: `LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        hooks = dict(kwargs, on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end, on_train_begin=on_train_begin,
                     on_train_end=on_train_end, on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end)
        for name, fn in hooks.items():
            if fn is not None:
                if not hasattr(Callback, name):
                    raise ValueError(f"LambdaCallback: unknown hook `{name}`.")
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's loss is NaN or infinite (or, with `raise_error=True`, raises a
    RuntimeError there)."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating "
                                   f"training immediately.")
            _trainer.emit(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes one row per epoch (the epoch, then the logged values by name) to a CSV file."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.separator, self.append = os.fspath(filename), separator, append
        self._file = self._writer = self._keys = None

    def on_train_begin(self, logs=None):
        exists = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._header_written = exists
        self._writer = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._writer is None:
            self._keys = sorted(logs)
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self._keys, delimiter=self.separator)
            if not self._header_written:
                self._writer.writeheader()
        self._writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self._keys}})
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = self._writer = None


class BackupAndRestore(Callback):
    """Backs up the training state during `fit` and restores it when `fit` is started again, as Keras 3.15.

    The backup is `latest.weights.h5` (the weights and the optimizer's state) and `training_metadata.json`
    (`{"epoch": next epoch, "batch": last batch}`) in `backup_dir`, written at the end of each epoch or every
    `save_freq` batches, each file written beside its target and renamed over it (a process killed while
    backing up leaves the previous backup whole); `double_checkpoint=True` keeps the previous pair as `*.bkp`
    for when the latest weights cannot be read. `fit` restarted resumes at the backed-up epoch (whole epochs,
    as Keras 3: the batch is recorded only); a `fit` that completes deletes `backup_dir` unless
    `delete_checkpoint=False`. In a multi-worker job only the chief writes `backup_dir`; the others write a
    temporary `workertemp_<task_id>` copy they delete, and on a relaunch every worker restores the chief's."""

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0
        self._current_epoch = 0
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        self.backup_dir = os.fspath(backup_dir)
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._training_metadata_path = os.path.join(self.backup_dir, "training_metadata.json")
        self._prev_weights_path = f"{self._weights_path}.bkp"
        self._prev_training_metadata_path = f"{self._training_metadata_path}.bkp"
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. Expected "
                             f"either 'epoch' or an integer value.")

    # -- restoring -----------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        try:
            self._load_model()
        except OSError:
            # The latest weights cannot be read (a damaged file): fall back on the previous backup.
            if not os.path.exists(self._prev_weights_path):
                raise
            shutil.copyfile(self._prev_weights_path, self._weights_path)
            if os.path.exists(self._prev_training_metadata_path):
                shutil.copyfile(self._prev_training_metadata_path, self._training_metadata_path)
            elif os.path.exists(self._training_metadata_path):
                os.remove(self._training_metadata_path)
            self._load_model()

    def _load_model(self):
        if not self.model.built:
            raise ValueError(f"To use the BackupAndRestore callback, you model must be built before you call "
                             f"`fit()`. Model {self.model} is unbuilt. You can build it beforehand by calling it "
                             f"on a batch of data.")
        if os.path.exists(self._weights_path):
            optimizer = getattr(self.model, "optimizer", None)
            if optimizer is not None and not optimizer.built:
                optimizer.build(self.model.trainable_variables)   # its state is in the backup too
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._training_metadata_path):
            with open(self._training_metadata_path) as f:
                metadata = json.loads(f.read())
            self.model._initial_epoch = int(metadata["epoch"])

    # -- backing up ----------------------------------------------------------------------------------
    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model()

    def _save_model(self):
        directory = chief_files.write_dirpath(self.backup_dir)     # the chief's backup_dir, or a temporary one
        os.makedirs(directory, exist_ok=True)
        weights = os.path.join(directory, os.path.basename(self._weights_path))
        metadata = os.path.join(directory, os.path.basename(self._training_metadata_path))
        if self.double_checkpoint:
            for path in (weights, metadata):
                if os.path.exists(path):
                    shutil.copyfile(path, f"{path}.bkp")
        self.model.save_weights(weights, overwrite=True)
        with atomic_write(metadata) as f:
            f.write(json.dumps({"epoch": self._current_epoch, "batch": self._last_batch_seen}).encode())
        chief_files.remove_temp_dirpath(self.backup_dir)

    def _should_save_on_batch(self, batch):
        """Every `save_freq` batches, counted across epochs (a batch number that does not grow is a new epoch)."""
        if self.save_freq == "epoch":
            return False
        added = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def on_train_end(self, logs=None):
        strategy = _replicas.strategy_of(self.model)
        if strategy is not None:
            # Every worker has finished its last backup before the chief deletes the directory holding them.
            strategy.reduce("SUM", np.int64(0), axis=None)
        if self.delete_checkpoint and os.path.exists(self.backup_dir) and chief_files.is_chief():
            shutil.rmtree(self.backup_dir)


API = {"keras.callbacks": __all__}
