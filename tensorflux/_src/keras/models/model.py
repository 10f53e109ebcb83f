"""`keras.Model` and `keras.Sequential`: layers that can be compiled, trained, evaluated and used to predict.

`fit` runs `train_step` once per batch inside one `tf.function` (unless `run_eagerly=True`): the forward
pass under a GradientTape, the compiled loss plus layer losses, the optimizer update, and the metric
updates. Metric state lives in variables, so the step returns the running results and `fit` reads them
once per epoch. The first traced step builds the model and the optimizer's slots (creating variables on
the first call, as tf.function allows); a smaller last batch retraces once with a generalised batch size.
"""
import json
import warnings

import numpy as np

import tensorflux as tf

from .. import callbacks as _callbacks
from . import compile_utils as _compile_utils
from .. import metrics as _metrics
from ..optimizers import optimizer as _optimizers
from . import replicas as _replicas
from . import trainer as _trainer
from .summary import summary_text
from ..layers.input_layer import InputLayer
from ..keras_tensor import KerasTensor
from ..layers.layer import Layer, _call_spec
from ..variables import layer_scope


class Model(Layer):
    """Subclass it: create layers in `__init__`, use them in `call`; then compile and fit."""

    # Set by the modules built on Model: keras.functional registers the Functional class (what
    # `keras.Model(inputs, outputs)` makes), keras.saving the functions behind `model.save` and the
    # weights files.
    _functional = None
    _save_model = _model_config = _save_weights_file = _load_weights_file = None
    _compile_metrics = None     # compile_utils.CompileMetrics once compiled with metrics

    def __new__(cls, *args, **kwargs):
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return super().__new__(Model._functional)   # keras.Model(inputs, outputs)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        functional = Model._functional
        if (args or "inputs" in kwargs or "outputs" in kwargs) and not isinstance(self, functional):
            # A subclass built functionally (`Cls(inputs, outputs)` or `super().__init__(inputs=..., outputs=...)`)
            # becomes a Functional model that keeps the subclass's methods (train_step, ...), as in Keras 3.
            self.__class__ = _functional_subclass(type(self), functional)
            functional.__init__(self, *args, **kwargs)
            return
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes keyword arguments only (got {len(args)} "
                            f"positional)")
        super().__init__(**kwargs)
        self.optimizer = None
        self.compiled = False
        self.stop_training = False
        self.history = None
        self.run_eagerly = False
        self.loss = None
        self._loss_plan = None      # compile_utils.LossPlan / MetricPlan, resolved on the first batch
        self._metric_plan = None
        self._loss_tracker = None
        self._train_function = self._test_function = self._predict_function = None

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"Model {type(self).__name__} does not have a `call()` method implemented.")

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A functional model's config (`input_layers`, `output_layers`) makes a functional model, as in
        Keras; any other config goes to the class's constructor."""
        functional = Model._functional
        if functional is not None and isinstance(config, dict) and "input_layers" in config and \
                "output_layers" in config and (cls is Model or issubclass(cls, functional)):
            return functional.from_config(config, custom_objects)
        return super().from_config(config)

    @property
    def layers(self):
        return self._flat_layers()

    def build(self, input_shape=None):
        """Builds by calling the model once on zeros of `input_shape` (unknown dims taken as 1)."""
        if input_shape is not None and not self.built:
            self(tf.zeros([1 if d is None else d for d in input_shape]))
        self.built = True

    build._default_build = True  # on a first call, sublayers build themselves

    # -- compiling -----------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        for arg, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value is not None and not isinstance(value, (list, tuple, dict)):
                raise ValueError(f"Expected `{arg}` argument to be a list or tuple. Received instead: "
                                 f"{arg}={value} of type {type(value)}")
        self.optimizer = _optimizers.get(optimizer)
        self._distribute_strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        self._compile_arguments = {"optimizer": optimizer, "loss": loss, "loss_weights": loss_weights,
                                   "metrics": metrics, "weighted_metrics": weighted_metrics,
                                   "run_eagerly": run_eagerly}
        if loss is not None or self._loss_plan is None:
            # As Keras 3.15: compiling again without a `loss` keeps the loss compiled before.
            self.loss = loss
            self._loss_plan = _compile_utils.LossPlan(loss, loss_weights)
        self._metric_plan = _compile_utils.MetricPlan(metrics, weighted_metrics)
        self._compile_metrics = None if metrics is None and weighted_metrics is None else \
            _compile_utils.CompileMetrics(self._metric_plan, self._output_names)
        self._loss_tracker = _metrics.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self._train_function = self._test_function = self._predict_function = None
        self.compiled = True

    def _assert_compiled(self):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    @property
    def metrics(self):
        if self._loss_tracker is None:
            return []
        compiled = [self._compile_metrics] if self._compile_metrics is not None else []
        return [self._loss_tracker] + compiled + self._loss_plan.trackers

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    # -- one step ------------------------------------------------------------------------------
    def _forward(self, x, training):
        return self(x, training=training) if _call_spec(type(self))[0] else self(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        terms = []
        if self._loss_plan is not None:
            value = self._loss_plan(y, y_pred, sample_weight, self._output_names(y_pred))
            if value is not None:
                terms.append(value)
        terms += [_summed_loss(loss) for loss in self.losses]
        if not terms:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return terms[0] if len(terms) == 1 else tf.add_n(terms)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _output_names(self, y_pred):
        """Names of a multi-output model's outputs (dict keys, else the functional model's output layers)."""
        if isinstance(y_pred, dict):
            return sorted(y_pred)
        count = len(tf.nest.flatten(y_pred))
        names = getattr(self, "output_names", None)
        return list(names) if names and len(names) == count else [f"output_{i}" for i in range(count)]

    def get_metrics_result(self):
        results = {}
        for m in self.metrics:
            result = m.result()
            if isinstance(result, dict):      # compile_metrics: its metrics by name
                results.update(result)
            else:
                results[m.name] = result
        return results

    def _track_loss(self, x, loss):
        batch = tf.shape(tf.nest.flatten(x)[0])[0]
        self._loss_tracker.update_state(loss, sample_weight=batch)
        for tracker, value, size in self._loss_plan.last:
            tracker.update_state(value, sample_weight=size)

    def train_step(self, data):
        x, y, sample_weight = _trainer.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self._forward(x, True)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
            replicas = _replicas.replicas_in_step()
            # Under a strategy, each replica's share: summed across replicas by the optimizer, the gradients
            # are those of the global batch's mean loss (Keras scales the same way).
            scaled = loss / replicas if replicas > 1 else loss
            if self.optimizer is not None:    # as Keras: the gradients of the scaled loss (loss scaling)
                scaled = self.optimizer.scale_loss(scaled)
        self._track_loss(x, loss)
        variables = self.trainable_weights
        if variables:
            gradients = tape.gradient(scaled, variables)
            _warn_missing_gradients(gradients, variables)
            self.optimizer.apply_gradients(zip(gradients, variables))
        else:
            warnings.warn("The model does not have any trainable weights.")
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        x, y, sample_weight = _trainer.unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, False)
        self._track_loss(x, self.compute_loss(x, y, y_pred, sample_weight, training=False))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = _trainer.unpack_x_y_sample_weight(data)
        return self._forward(x, False)

    def _step_function(self, step):
        def one_step(x, y=None, sample_weight=None):
            return step(_pack(x, y, sample_weight))
        strategy = _replicas.strategy_of(self)
        if strategy is not None and step != self.predict_step:
            one_step = _replicas.distributed_step(strategy, step, _pack, self)
        elif strategy is not None and strategy._local > 1:
            one_step = _replicas.local_predict_step(strategy, step, _pack)
        function = one_step if self.run_eagerly else tf.function(one_step, reduce_retracing=True)
        if strategy is not None and strategy._local > 1 and not self.run_eagerly and step != self.predict_step:
            function = _replicas.EagerFirstStep(one_step, function)     # builds metrics/slots eagerly first
        if strategy is not None and step == self.predict_step and strategy.extended._in_multi_worker_mode():
            return _replicas.DistributedPredict(strategy, function)    # each worker its slice, gathered in order
        return function

    def make_train_function(self, force=False):
        if self._train_function is None or force:
            self._train_function = self._step_function(self.train_step)
        return self._train_function

    def make_test_function(self, force=False):
        if self._test_function is None or force:
            self._test_function = self._step_function(self.test_step)
        return self._test_function

    def make_predict_function(self, force=False):
        if self._predict_function is None or force:
            self._predict_function = self._step_function(self.predict_step)
        return self._predict_function

    # -- loops ---------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None, sample_weight=None,
            initial_epoch=0, steps_per_epoch=None, validation_steps=None, validation_batch_size=None,
            validation_freq=1):
        self._assert_compiled()
        if isinstance(x, tf.data.Dataset) and shuffle:
            warnings.warn("`shuffle=True` was passed, but will be ignored since the data `x` was provided as a "
                          "tf.data.Dataset. The Dataset is expected to already be shuffled (via "
                          "`.shuffle(buffer_size)`).", stacklevel=2)
        data = _trainer.batches_for(x, y, sample_weight, batch_size, shuffle, class_weight)
        held_out = None
        if validation_data is not None:
            vx, vy, vw = _trainer.unpack_x_y_sample_weight(validation_data)
            held_out = _trainer.batches_for(vx, vy, vw, validation_batch_size or batch_size)
        elif validation_split:
            if not isinstance(data, _trainer.ArrayBatches):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, found a "
                                 "tf.data.Dataset.")
            data, held_out = data.split(validation_split)
        strategy = _replicas.strategy_of(self)
        if strategy is not None and isinstance(data, _trainer.ArrayBatches):
            data.permutation = _replicas.agreed_permutation(strategy)
        verbose = _trainer.resolve_verbose(verbose)
        history = _callbacks.History()     # notified last, so it records what other callbacks add to the logs
        callbacks = _callbacks.CallbackList(list(callbacks or ()) + [history], self,
                                            {"verbose": verbose, "epochs": epochs,
                                             "steps": steps_per_epoch or data.steps})
        epochs_data = _trainer.EpochIterator(data, steps_per_epoch)
        train_function = self.make_train_function()
        self.stop_training = False
        callbacks.on_train_begin({})
        logs = {}
        initial_epoch = getattr(self, "_initial_epoch", None) or initial_epoch   # set by BackupAndRestore
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch, {})
            if verbose and epochs > 1:
                _trainer.emit(f"Epoch {epoch + 1}/{epochs}")
            timer = _trainer.Timer()
            logs, steps = self._run_epoch(train_function, epochs_data.epoch(), None, callbacks, "train",
                                          batch_size_known=data.batch_size_known)
            if held_out is not None and (epoch + 1) % validation_freq == 0:
                callbacks.on_test_begin({})
                val_logs, _ = self._run_epoch(self.make_test_function(), held_out, validation_steps, callbacks, "test",
                                              reset=True, batch_size_known=held_out.batch_size_known)
                callbacks.on_test_end(dict(val_logs))
                logs.update({"val_" + k: v for k, v in val_logs.items()})
            if verbose:
                _trainer.emit(_trainer.progress_line(verbose, steps, timer.elapsed(), logs))
            callbacks.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        callbacks.on_train_end(dict(logs))     # the last epoch's logs, as Keras passes them
        self.history = history
        return history

    def _run_epoch(self, function, data, max_steps, callbacks, kind, reset=False, batch_size_known=True):
        """Runs `function` on each batch; returns (the last step's logs as floats, steps run). Batch hooks of
        `callbacks` ("train" or "test" ones) run only when a callback overrides them."""
        if reset:
            self.reset_metrics()
        begin, end = f"on_{kind}_batch_begin", f"on_{kind}_batch_end"
        begin = begin if callbacks.wants_batches[begin] else None
        end = end if callbacks.wants_batches[end] else None
        logs, steps = None, 0
        for batch in data:
            if not steps:
                _trainer.trace_for_batch(function, batch, batch_size_known)
            if begin:
                getattr(callbacks, begin)(steps, {})
            logs = function(*batch)
            if end:
                getattr(callbacks, end)(steps, _trainer.log_values(logs))
            steps += 1
            if max_steps and steps >= max_steps or kind == "train" and self.stop_training:
                break
        if logs is None:
            raise ValueError("Unexpected result of the step function (Empty logs). This could be due to issues "
                             "in input pipeline that resulted in an empty dataset.")
        return _trainer.log_values(logs), steps

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False):
        self._assert_compiled()
        data = _trainer.batches_for(x, y, sample_weight, batch_size)
        verbose = _trainer.resolve_verbose(verbose)
        callbacks = _callbacks.CallbackList(callbacks, self, {"verbose": verbose, "epochs": 1, "steps": data.steps})
        timer = _trainer.Timer()
        callbacks.on_test_begin({})
        logs, count = self._run_epoch(self.make_test_function(), data, steps, callbacks, "test", reset=True,
                                      batch_size_known=data.batch_size_known)
        callbacks.on_test_end(dict(logs))
        if verbose:
            _trainer.emit(_trainer.progress_line(verbose, count, timer.elapsed(), logs))
        return logs if return_dict else self._in_metric_order(logs)

    def _in_metric_order(self, logs):
        names = []
        for m in self.metrics:
            names += m.flat_names() if isinstance(m, _compile_utils.CompileMetrics) else [m.name]
        names = [n for n in names if n in logs]
        names += [n for n in logs if n not in names]
        values = [logs[n] for n in names]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        data = _trainer.batches_for(x, None, None, batch_size)
        function = self.make_predict_function()
        callbacks = _callbacks.CallbackList(callbacks, self, {"verbose": _trainer.resolve_verbose(verbose),
                                                              "epochs": 1, "steps": data.steps})
        begin = callbacks.wants_batches["on_predict_batch_begin"]
        end = callbacks.wants_batches["on_predict_batch_end"]
        timer = _trainer.Timer()
        callbacks.on_predict_begin({})
        outputs, count = [], 0
        for batch in data:
            if not count:
                _trainer.trace_for_batch(function, batch[:1], data.batch_size_known)
            if begin:
                callbacks.on_predict_batch_begin(count, {})
            outputs.append(function(batch[0]))
            if end:
                callbacks.on_predict_batch_end(count, {"outputs": outputs[-1]})
            count += 1
            if steps and count >= steps:
                break
        callbacks.on_predict_end({})
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `keras`.")
        if _trainer.resolve_verbose(verbose):
            _trainer.emit(_trainer.progress_line(1, count, timer.elapsed(), {}))
        return tf.nest.map_structure(lambda *parts: np.concatenate([np.asarray(p) for p in parts]), *outputs)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        self._assert_compiled()
        batch = next(iter(_trainer.ArrayBatches(x, y, sample_weight, batch_size=len(tf.nest.flatten(x)[0]))))
        logs = self.make_train_function()(*batch)
        logs = _trainer.log_values(logs)
        return logs if return_dict else self._in_metric_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._assert_compiled()
        self.reset_metrics()
        batch = next(iter(_trainer.ArrayBatches(x, y, sample_weight, batch_size=len(tf.nest.flatten(x)[0]))))
        logs = self.make_test_function()(*batch)
        logs = _trainer.log_values(logs)
        return logs if return_dict else self._in_metric_order(logs)

    def predict_on_batch(self, x):
        batch = next(iter(_trainer.ArrayBatches(x, batch_size=len(tf.nest.flatten(x)[0]))))
        return tf.nest.map_structure(np.asarray, self.make_predict_function()(batch[0]))

    # -- weights on disk -----------------------------------------------------------------------
    def save_weights(self, filepath, overwrite=True):
        """Writes every weight of the model (`model.weights` order) to `filepath` in tensorflux's format.

        The file is a NumPy `.npz` archive, written under exactly the name given (a `.weights.h5` name is
        accepted, but the content is not HDF5): `w00000`, `w00001`, … hold the weights in order, `names` their
        variable names and `format` the string "tensorflux.weights/1".
        """
        Model._save_weights_file(self, filepath, overwrite)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Assigns the weights stored by `save_weights`, in order; the model must be built first.

        Raises ValueError when the number of weights or a shape differs (with `skip_mismatch=True`, weights
        whose shapes differ are skipped with a warning instead).
        """
        if kwargs:
            raise ValueError(f"Invalid keyword arguments: {kwargs}")
        Model._load_weights_file(self, filepath, skip_mismatch)

    def save(self, filepath, overwrite=True, zipped=None, **kwargs):
        """Writes the whole model (config, weights, compile arguments) to a `.keras` file; see keras.saving."""
        Model._save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def to_json(self, **kwargs):
        """The model's structure as JSON (`keras.models.model_from_json` rebuilds it, without weights)."""
        return json.dumps(Model._model_config(self), **kwargs)

    # -- text ----------------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False,
                layer_range=None):
        (print_fn or print)(summary_text(self, show_trainable=show_trainable, line_length=line_length,
                                         positions=positions))


_FUNCTIONAL_SUBCLASSES = {}   # a Model subclass -> that subclass mixed with Functional


def _functional_subclass(cls, functional):
    mixed = _FUNCTIONAL_SUBCLASSES.get(cls)
    if mixed is None:
        mixed = _FUNCTIONAL_SUBCLASSES[cls] = type(cls.__name__, (cls, functional),
                                                   {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return mixed


def _warn_missing_gradients(gradients, variables):
    """Keras' warning when some (not all) trainable variables get no gradient: typically an output that
    `compile()` gave no loss. (Keras' optimizer warns as it drops them; this optimizer drops them silently.)"""
    missing = [getattr(v, "path", v.name) for g, v in zip(gradients, variables) if g is None]
    if missing and len(missing) < len(variables):
        warnings.warn(f"Gradients do not exist for variables {missing} when minimizing the loss. If using "
                      f"`model.compile()`, did you forget to provide a `loss` argument?", stacklevel=3)


def _summed_loss(loss):
    """A loss from `model.losses` as one float scalar (a tensor loss is summed, as Keras does)."""
    loss = tf.convert_to_tensor(loss)
    if not loss.dtype.is_floating:
        loss = tf.cast(loss, tf.float32)
    return loss if loss.shape.rank == 0 else tf.reduce_sum(loss)


def _pack(x, y, sample_weight):
    if y is None and sample_weight is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


class Sequential(Model):
    """A plain stack of layers, each fed the previous one's output."""

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._stack = []
        self._input_shape = None
        for layer in layers or ():
            self.add(layer, rebuild=False)
        self._build_from_input_shape()

    def add(self, layer, rebuild=True):
        if isinstance(layer, KerasTensor) and isinstance(layer._keras_history[0].operation, InputLayer):
            layer = layer._keras_history[0].operation    # keras.Input(...) as the first entry
        if isinstance(layer, InputLayer):
            if self._stack:
                raise ValueError("An `Input` can only be the first entry of a Sequential model.")
            self._input_shape = layer.batch_shape
            self._input_layer = layer       # its KerasTensor starts the graph (Keras lists it in summaries)
        elif not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                             f"{layer} (of type {type(layer)})")
        else:
            if not self._stack and layer._input_shape_arg is not None and self._input_shape is None:
                self._input_shape = (None,) + tuple(layer._input_shape_arg)
            self._stack.append(layer)
        if rebuild:
            self._build_from_input_shape()

    def pop(self):
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        self._graph = None
        self._build_from_input_shape()
        return layer

    # -- the graph of a Sequential whose input shape is known (keras.Input first, or input_shape=) ----
    def _graph_or_raise(self, what):
        if getattr(self, "_graph", None) is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._graph

    @property
    def inputs(self):
        return [self._graph_or_raise("inputs")[0]]

    @property
    def outputs(self):
        return [self._graph_or_raise("outputs")[1]]

    @property
    def input_shape(self):
        return self._graph_or_raise("input shape")[0].shape

    @property
    def output_shape(self):
        return self._graph_or_raise("output shape")[1].shape

    @property
    def input(self):
        return self._first_node_or_raise("input")

    @property
    def output(self):
        return self._first_node_or_raise("output")

    def get_layer(self, name=None, index=None):
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if index >= len(self._stack):
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self._stack)} layers.")
            return self._stack[index]
        if name is not None:
            for layer in self._stack:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self._stack]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def layers(self):
        return list(self._stack)

    def _build_from_input_shape(self):
        """Builds every layer from the declared input shape, as far as output shapes can be inferred
        (inside this model's name scope: weight paths are `sequential/dense/kernel`, as Keras')."""
        with layer_scope(self):
            self._build_layers_from_input_shape()

    def _build_layers_from_input_shape(self):
        shape = self._input_shape
        self._graph = None
        if shape is None:
            return
        if self._stack and self._build_graph(shape):
            self.built = True
            return
        for layer in self._stack:
            if not layer.built:
                layer._build_with_shape(shape)
            try:
                shape = tuple(layer.compute_output_shape(shape))
            except NotImplementedError:
                return
            layer._output_shape = tf.TensorShape(shape)
        self.built = True

    def build(self, input_shape=None):
        """Builds from `input_shape` (batch dimension included) as if an Input of that shape came first."""
        if input_shape is not None and not self.built and self._input_shape is None and self._stack:
            self._input_shape = tuple(input_shape)
            self._build_from_input_shape()
            if self.built:
                return
        super().build(input_shape)

    build._default_build = True  # on a first call, _build_for builds from the call's shape

    def _build_for(self, first):
        """A Sequential without a declared input, first called eagerly, builds from that call's shape
        (batch dimension included, as Keras 3 records it: its summary shows `(1, 2)` after `model(ones((1, 4)))`)."""
        if self._input_shape is None and self._stack and tf.executing_eagerly() and isinstance(first, tf.Tensor):
            self._input_shape = tuple(first.shape.as_list())
            self._build_from_input_shape()
            if self.built:
                return
        super()._build_for(first)

    def _build_graph(self, shape):
        """Calls the layers on a symbolic input of `shape` (building them, and giving each its `input` and
        `output`); False when a layer cannot be called symbolically (then output shapes are inferred)."""
        given = getattr(self, "_input_layer", None)
        inputs = x = (given if given is not None else InputLayer(batch_shape=shape)).output
        try:
            for layer in self._stack:
                x = layer(x)
        except (NotImplementedError, TypeError, ValueError):
            return False
        if not isinstance(x, KerasTensor):
            return False
        self._graph = (inputs, x)
        return True

    def call(self, inputs, training=None):
        x = inputs
        for layer in self._stack:
            x = layer(x)
        return x

    def compute_output_shape(self, input_shape):
        for layer in self._stack:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    # Set by keras.saving: Keras 3's config of a Sequential (serialized layers) and the model made from it.
    _keras_get_config = _keras_from_config = None

    def get_config(self):
        if Sequential._keras_get_config is not None:
            return Sequential._keras_get_config(self)
        return {"name": self.name, "trainable": self.trainable, "layers": self.layers,
                "input_shape": list(self._input_shape) if self._input_shape is not None else None}

    @classmethod
    def from_config(cls, config):
        """From Keras 3's config (layers as serialized dicts), or from layer objects and an input shape."""
        layers = config.get("layers") or []
        if cls is Sequential and Sequential._keras_from_config is not None and any(
                isinstance(entry, dict) for entry in layers):
            return Sequential._keras_from_config(config)
        model = cls(name=config["name"], trainable=config["trainable"])
        if config.get("input_shape") is not None:
            model.add(InputLayer(batch_shape=config["input_shape"]), rebuild=False)
        for layer in config["layers"]:
            model.add(layer, rebuild=False)
        model._build_from_input_shape()
        return model

API = {"keras.models": ["Model", "Sequential"]}
