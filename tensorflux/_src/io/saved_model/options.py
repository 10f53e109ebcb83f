"""`tf.saved_model.SaveOptions` / `LoadOptions` and `contains_saved_model`, with TensorFlow's arguments.

The options that change what TensorFlow writes or reads are honoured where tensorflux has the feature
(`extra_tags`, `experimental_skip_checkpoint`, `allow_partial_checkpoint`); device and sharding options
have nothing to act on in a host-only runtime and are kept as given.
"""
import os

__all__ = ["SaveOptions", "LoadOptions", "contains_saved_model"]


class SaveOptions:
    """Options for `tf.saved_model.save`."""

    __slots__ = ("namespace_whitelist", "save_debug_info", "function_aliases", "experimental_debug_stripper",
                 "experimental_io_device", "experimental_variable_policy", "experimental_custom_gradients",
                 "experimental_image_format", "experimental_skip_saver", "experimental_sharding_callback",
                 "extra_tags")

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = list(extra_tags or [])


class LoadOptions:
    """Options for `tf.saved_model.load`."""

    __slots__ = ("allow_partial_checkpoint", "experimental_io_device", "experimental_skip_checkpoint",
                 "experimental_variable_policy", "experimental_load_function_aliases")

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None, experimental_skip_checkpoint=False,
                 experimental_variable_policy=None, experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


def contains_saved_model(export_dir):
    """Whether `export_dir` holds a SavedModel (a `saved_model.pb` or `saved_model.pbtxt`)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, name)) for name in ("saved_model.pb", "saved_model.pbtxt"))


API = {"saved_model": ["SaveOptions", "LoadOptions", "contains_saved_model"]}
