"""Automatic differentiation: GradientTape, reverse-mode backprop, custom gradients."""
from .tape import GradientTape, UnconnectedGradients
from .custom import custom_gradient
from . import function_gradients  # noqa: F401  (registers the gradient of tf.function calls)
from . import control_flow_grads  # noqa: F401  (registers the gradients of If and While)

API = {
    "": ["GradientTape", "UnconnectedGradients", "custom_gradient"],
}
