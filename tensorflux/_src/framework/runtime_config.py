"""The rest of `tf.config`: soft device placement, `tf.config.optimizer` (Grappler's switches and XLA's
auto-clustering), `tf.config.threading`, and the deprecated `experimental_*` spellings of
run_functions_eagerly.

tensorflux runs every op on the CPU, each kernel on the calling thread; these settings keep TensorFlow's
values and validation so programs that set and read them behave as under TensorFlow: `optimizer.set_jit`
turns tensorflux's automatic compilation (runtime/tiering.py) on, the others are recorded for reading back.
"""
import logging

from . import context as _context

__all__ = ["get_soft_device_placement", "set_soft_device_placement", "experimental_run_functions_eagerly",
           "experimental_functions_run_eagerly", "get_jit", "set_jit", "get_experimental_options",
           "set_experimental_options", "get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads",
           "get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads"]

_logger = logging.getLogger("tensorflow")
_SOFT_PLACEMENT = [True]
_THREADS = {"inter": 0, "intra": 0}     # 0: the runtime picks, as in TensorFlow
# Grappler's options in the order TensorFlow reports them: on/off toggles, and the two plain booleans
# (always reported); unknown keys are ignored, as TensorFlow does.
_OPTIMIZER_OPTIONS = (
    "layout_optimizer", "constant_folding", "shape_optimization", "remapping", "arithmetic_optimization",
    "dependency_optimization", "loop_optimization", "function_optimization", "debug_stripper",
    "disable_model_pruning", "scoped_allocator_optimization", "pin_to_host_optimization",
    "implementation_selector", "auto_mixed_precision", "use_plugin_optimizers", "disable_meta_optimizer",
    "auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_mkl", "min_graph_nodes")
_ALWAYS_REPORTED = ("disable_model_pruning", "disable_meta_optimizer")
_options = {}


def get_soft_device_placement():
    """`tf.config.get_soft_device_placement`: whether an op may fall back to another device (default True)."""
    return _SOFT_PLACEMENT[0]


def set_soft_device_placement(enabled):
    """`tf.config.set_soft_device_placement`: any truthy value turns soft placement on."""
    _SOFT_PLACEMENT[0] = bool(enabled)


_warned = set()


def _deprecated(name, advice):
    """TensorFlow's deprecation warning, once per function, naming the caller's file and line."""
    if name in _warned:
        return
    _warned.add(name)
    import sys
    caller = sys._getframe(2)
    _logger.warning("From %s:%d: %s (from tensorflow.python.eager.polymorphic_function.eager_function_run) is "
                    "deprecated and will be removed in a future version.\nInstructions for updating:\n%s",
                    caller.f_code.co_filename, caller.f_lineno, name, advice)


def experimental_run_functions_eagerly(run_eagerly):
    """Deprecated spelling of `tf.config.run_functions_eagerly`."""
    _deprecated("experimental_run_functions_eagerly",
                "Use `tf.config.run_functions_eagerly` instead of the experimental version.")
    _context.run_functions_eagerly(run_eagerly)


def experimental_functions_run_eagerly():
    """Deprecated spelling of `tf.config.functions_run_eagerly`."""
    _deprecated("experimental_functions_run_eagerly",
                "Use tf.config.functions_run_eagerly instead of the experimental version.")
    return _context.functions_run_eagerly()


def get_jit():
    """`tf.config.optimizer.get_jit`: "autoclustering" when automatic compilation is on, else ""."""
    return _context.get_optimizer_jit()


def set_jit(enabled):
    """`tf.config.optimizer.set_jit`: True or "autoclustering" turns automatic compilation on."""
    _context.set_optimizer_jit(enabled)


def get_experimental_options():
    """`tf.config.optimizer.get_experimental_options`: the options set, with TensorFlow's two defaults."""
    return {key: _options.get(key, False) for key in _OPTIMIZER_OPTIONS
            if key in _options or key in _ALWAYS_REPORTED}


def set_experimental_options(options):
    """`tf.config.optimizer.set_experimental_options`: updates the named options (others unchanged)."""
    for key, value in dict(options).items():
        if key in _OPTIMIZER_OPTIONS:
            _options[key] = int(value) if key == "min_graph_nodes" else bool(value)


def get_inter_op_parallelism_threads():
    """`tf.config.threading.get_inter_op_parallelism_threads` (0: the runtime picks)."""
    return _THREADS["inter"]


def set_inter_op_parallelism_threads(num_threads):
    """`tf.config.threading.set_inter_op_parallelism_threads`."""
    _THREADS["inter"] = int(num_threads)


def get_intra_op_parallelism_threads():
    """`tf.config.threading.get_intra_op_parallelism_threads` (0: the runtime picks)."""
    return _THREADS["intra"]


def set_intra_op_parallelism_threads(num_threads):
    """`tf.config.threading.set_intra_op_parallelism_threads`."""
    _THREADS["intra"] = int(num_threads)


API = {
    "config": ["get_soft_device_placement", "set_soft_device_placement", "experimental_run_functions_eagerly",
               "experimental_functions_run_eagerly"],
    "config.optimizer": ["get_jit", "set_jit", "get_experimental_options", "set_experimental_options"],
    "config.threading": ["get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads",
                         "get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads"],
}
