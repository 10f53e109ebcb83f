"""Automatic differentiation: GradientTape, reverse-mode backprop, custom gradients."""
from .tape import GradientTape, UnconnectedGradients
from .custom import custom_gradient
from . import function_gradients  # noqa: F401  (registers the gradient of tf.function calls)

API = {
    "": ["GradientTape", "UnconnectedGradients", "custom_gradient"],
}
