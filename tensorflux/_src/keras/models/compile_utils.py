"""What `Model.compile(loss=..., loss_weights=..., metrics=...)` becomes once the model's outputs are known.

A model with one output has one loss and a flat list of metrics (logged as `loss`, `mae`, …). A model
with several outputs (a list or dict of them) takes its losses as one loss for every output, a list in
output order, or a dict by output name; `loss_weights` alike; metrics as a list with one entry (a metric
or a list of them) per output, or a dict by output name. Keras's logs name each per-output value after
its output: `o1_loss`, `o1_mae`. The total `loss` is Σ weight · output loss, plus the layers' losses.
The plan is resolved on the first batch, when the structure of `y_pred` is known.
"""
import tensorflux as tf

from .. import losses as _losses
from .. import metrics as _metrics

__all__ = ["as_loss", "LossPlan", "MetricPlan", "match_targets"]


def as_loss(loss):
    """A Loss object (or None) for one loss identifier: a Loss, a function, or a name."""
    if loss is None or isinstance(loss, _losses.Loss):
        return loss
    fn = _losses.get(loss)
    if isinstance(fn, _losses.Loss):
        return fn
    return _losses.LossFunctionWrapper(fn, name=loss if isinstance(loss, str) else None)


def _per_output(spec, names, what, default):
    """One entry of `spec` per output: a dict by name, a list in order, or one value for all."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ValueError(f"In the dict argument `{what}`, keys {unknown} do not correspond to any model output. "
                             f"Received: {what}={spec}; the model's outputs are {names}.")
        return [spec.get(n, default) for n in names]
    if isinstance(spec, (list, tuple)):
        if len(spec) != len(names):
            raise ValueError(f"`{what}` should have {len(names)} entries, one per model output {names}. Received: "
                             f"{what}={spec}")
        return list(spec)
    return [spec] * len(names)


def match_targets(y, y_pred, names):
    """The targets `y` in the flat order of the outputs `y_pred` (named `names`)."""
    if isinstance(y, dict):
        missing = [n for n in names if n not in y]
        if missing:
            raise ValueError(f"The target dict lacks entries for the model outputs {missing}; it has {sorted(y)}.")
        return [y[n] for n in names]
    flat = list(y) if isinstance(y, (list, tuple)) else [y]
    if len(flat) != len(names):
        raise ValueError(f"The model has {len(names)} outputs {names}, but {len(flat)} target arrays were given.")
    return flat


class LossPlan:
    """The compiled loss of a model: per-output loss functions, weights, and the trackers of their values."""

    def __init__(self, loss, loss_weights):
        self._loss, self._weights = loss, loss_weights
        self.terms = None           # [(name or None, Loss or None, weight)], resolved on the first batch
        self.trackers = []          # Mean metrics `<output>_loss` (several outputs only)
        self.last = []              # (tracker, value, batch size or None) of the latest computation

    def resolve(self, y_pred, names):
        if self.terms is not None:
            return
        if not tf.nest.is_nested(y_pred):
            loss, weight = self._loss, self._weights
            if isinstance(loss, (list, tuple)) and len(loss) == 1:
                loss = loss[0]
            if isinstance(loss, (dict, list, tuple)):
                raise ValueError(f"The model has one output, so `compile()` takes one loss. Received: loss={loss}")
            if isinstance(weight, (list, tuple)) and len(weight) == 1:
                weight = weight[0]
            self.terms = [(None, as_loss(loss), 1.0 if weight is None else float(weight))]
            return
        if isinstance(self._loss, dict) and not isinstance(y_pred, dict) and set(self._loss) != set(names):
            # Keras 3 names every output of a list-output model in a loss dict (None for "no loss").
            raise ValueError(f"Expected keys {list(names)} in loss dict, but found "
                             f"loss.keys()={list(self._loss.keys())}")
        losses = _per_output(self._loss, names, "loss", None)
        weights = _per_output(self._weights, names, "loss_weights", 1.0)
        self.terms = [(n, as_loss(l), 1.0 if w is None else float(w)) for n, l, w in zip(names, losses, weights)]
        # Each output's loss is logged only when there are several to tell apart (Keras: "<output>_loss").
        with_loss = [n for n, l, _ in self.terms if l is not None]
        self.trackers = [_metrics.Mean(name=f"{n}_loss") for n in with_loss] if len(with_loss) > 1 else []

    def __call__(self, y, y_pred, sample_weight, names):
        """Σ weight · loss over the outputs that have a loss (None when none has)."""
        self.resolve(y_pred, names)
        if self.terms[0][0] is None:
            _, fn, weight = self.terms[0]
            self.last = []
            if fn is None:
                return None
            value = fn(y, y_pred, sample_weight)
            return value if weight == 1.0 else value * weight
        targets = match_targets(y, y_pred, names)
        total, self.last = [], []
        trackers = iter(self.trackers)
        for (name, fn, weight), target, prediction in zip(self.terms, targets, tf.nest.flatten(y_pred)):
            if fn is None:
                continue
            value = fn(target, prediction, sample_weight)
            tracker = next(trackers, None)
            if tracker is not None:     # Keras weighs the value by the output's static batch size
                self.last.append((tracker, value, _static_batch_size(prediction)))
            total.append(value if weight == 1.0 else value * weight)
        return tf.add_n(total) if total else None


def _static_batch_size(prediction):
    """Dimension 0 of `prediction` as the traced step knows it (None when the data leaves it unknown)."""
    shape = getattr(prediction, "shape", None)
    return shape[0] if shape is not None and shape.rank else None


class MetricPlan:
    """The compiled metrics: (metric, weighted, output index or None) triples, made on the first batch."""

    def __init__(self, metrics, weighted_metrics):
        self._specs = (metrics, weighted_metrics)
        self.entries = None

    @property
    def metrics(self):
        return [m for m, _, _ in self.entries or ()]

    def resolve(self, y, y_pred, names):
        if self.entries is not None:
            return
        metrics, weighted = self._specs
        if not metrics and not weighted:
            self.entries = []       # nothing to match: the data may even have no targets (add_loss models)
            return
        if not tf.nest.is_nested(y_pred):
            target = tf.convert_to_tensor(y)
            self.entries = [(_metrics.metric_for_compile(m, target, y_pred), w, None)
                            for ms, w in ((metrics, False), (weighted, True)) for m in ms or ()]
            return
        targets = [tf.convert_to_tensor(t) for t in match_targets(y, y_pred, names)]
        predictions = tf.nest.flatten(y_pred)
        self.entries = []
        for spec, w, what in ((metrics, False, "metrics"), (weighted, True, "weighted_metrics")):
            if spec is None:
                continue
            if isinstance(spec, (list, tuple)) and len(spec) != len(names):
                raise ValueError(f"Invalid `{what}`. For a model with {len(names)} outputs {names}, `{what}` should "
                                 f"be a dict by output name or a list with one entry (a metric or a list of "
                                 f"metrics) per output. Received: {what}={spec}")
            for index, entry in enumerate(_per_output(spec, names, what, None)):
                for m in entry if isinstance(entry, (list, tuple)) else ([entry] if entry is not None else []):
                    metric = _metrics.metric_for_compile(m, targets[index], predictions[index])
                    metric.name = f"{names[index]}_{metric.name}"
                    self.entries.append((metric, w, index))
        self.entries.sort(key=lambda entry: entry[0].name)     # Keras lists per-output metrics by name

    def update(self, y, y_pred, sample_weight, names):
        self.resolve(y, y_pred, names)
        if not self.entries:
            return
        if tf.nest.is_nested(y_pred):
            targets, predictions = match_targets(y, y_pred, names), tf.nest.flatten(y_pred)
        for metric, weighted, index in self.entries:
            if index is None:
                metric.update_state(y, y_pred, sample_weight if weighted else None)
            else:
                metric.update_state(targets[index], predictions[index], sample_weight if weighted else None)


class CompileMetrics(_metrics.Metric):
    """The one entry Keras 3 lists as `compile_metrics` in `model.metrics` for everything passed to
    `compile(metrics=..., weighted_metrics=...)`: a custom `train_step` that updates every metric of
    `model.metrics` with `(y, y_pred)` updates them all through it, and its result is a dict by metric name
    that the logs flatten (`mae`, not `compile_metrics`)."""

    def __init__(self, plan, output_names):
        super().__init__(name="compile_metrics")
        self._plan = plan
        self._output_names = output_names     # y_pred -> the names of the model's outputs

    @property
    def metrics(self):
        return self._plan.metrics

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    def update_state(self, y_true, y_pred, sample_weight=None):
        self._plan.update(y_true, y_pred, sample_weight, self._output_names(y_pred))

    def result(self):
        return {m.name: m.result() for m in self.metrics}

    def flat_names(self):
        """The names `evaluate` lists in this container's place (single-output metrics only: Keras matches
        its metrics' own names, which lack the output prefix a multi-output model's logs carry)."""
        return [m.name for m, _, index in self._plan.entries or () if index is None]
