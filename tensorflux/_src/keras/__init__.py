"""A core of Keras 3 (`tf.keras`) built on tensorflux's public API: layers, subclassed and Sequential
models and functional ones (`keras.Model(inputs, outputs)`) with compile/fit/evaluate/predict, optimizers,
losses, metrics, initializers and activations.

Each module lists its names in its own `API` table; this package re-exports them under aliases so that
`_src/namespaces.py` can build `tf.keras`, `tf.keras.layers`, … from this one source.
"""
import sys

from .. import namespaces as _namespaces  # tensorflux is fully imported before this room loads (LAZY)
# functional is imported for its effect: it registers what keras.Model(inputs, outputs) makes.
from . import activations, backend_config, callbacks, constraints, initializers, losses, metrics, regularizers
from . import utils
from . import ops, py_dataset, random, variables
from .models import functional, model as models
from .layers import (input_layer, core as layers, activations as layers_activation,
    attention as layers_attention, convolutional as layers_conv_extra, normalization as layers_extra,
    merging as layers_merge, preprocessing as layers_preprocessing, reshaping as layers_reshaping,
    rnn as layers_rnn, bidirectional as layers_bidirectional, masking as layers_masking)
from .layers import (adaptive_pooling as layers_adaptive_pooling, group_normalization as layers_group_norm,
    depthwise1d as layers_depthwise1d, reversible_embedding as layers_reversible_embedding,
    regularizing as layers_regularizing, structural as layers_structural, volumetric as layers_volumetric,
    stacked_cells as layers_stacked_cells, spectral_normalization as layers_spectral_normalization,
    conv_lstm as layers_conv_lstm)
from .optimizers import optimizer as optimizers, schedules, lamb_adafactor as optimizers_lamb_adafactor
from .optimizers import (loss_scale as optimizers_loss_scale, multi as optimizers_multi, muon as optimizers_muon,
    schedule_free_adamw as optimizers_schedule_free)
from .saving import saving, serialization
from .naming import clear_session
from . import tensorboard  # keras.callbacks.TensorBoard

_SOURCES = (activations, backend_config, callbacks, constraints, initializers, input_layer, layers,
            layers_activation, layers_attention, layers_conv_extra, layers_extra, layers_merge, layers_preprocessing,
            layers_reshaping, layers_rnn, layers_bidirectional, layers_masking, losses, metrics, models, ops,
            optimizers, py_dataset, random, regularizers, saving, schedules, serialization, tensorboard, utils,
            variables,
            layers_adaptive_pooling, layers_group_norm, layers_regularizing, layers_structural, layers_volumetric,
            layers_depthwise1d, layers_reversible_embedding, layers_stacked_cells,
            layers_spectral_normalization, layers_conv_lstm, optimizers_lamb_adafactor,
            optimizers_loss_scale, optimizers_multi, optimizers_muon, optimizers_schedule_free)

_TOP_LEVEL = {"Model": models.Model, "Sequential": models.Sequential, "Input": input_layer.Input,
              "Layer": layers.Layer, "Loss": losses.Loss, "Metric": metrics.Metric,
              "Optimizer": optimizers.Optimizer, "Initializer": initializers.Initializer}
_EXTRA = {"keras.layers": {"Input": input_layer.Input},
          "keras.models": {"Model": models.Model, "Sequential": models.Sequential},
          "keras.backend": {"clear_session": clear_session},
          "keras.utils": {"clear_session": clear_session}}


def _api():
    """`{namespace: ["public=alias"]}`, with every object bound here under a unique alias."""
    table = {}

    def export(namespace, name, obj):
        alias = "_" + namespace.replace(".", "_") + "__" + name
        globals()[alias] = obj
        table.setdefault(namespace, []).append(f"{name}={alias}")

    for source in _SOURCES:
        for namespace, names in source.API.items():
            for name in names:
                export(namespace, name, getattr(source, name))
    for name, obj in _TOP_LEVEL.items():
        export("keras", name, obj)
    for namespace, members in _EXTRA.items():
        for name, obj in members.items():
            export(namespace, name, obj)
    return table


API = _api()


def _install_namespaces():
    """Builds `tf.keras`, `tf.keras.layers`, … from this package's API table (on first import)."""
    _namespaces.install([sys.modules[__name__]], _namespaces.NAMESPACES)


_install_namespaces()
