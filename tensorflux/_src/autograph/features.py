"""`tf.autograph.experimental.Feature`: the optional conversions a user may ask AutoGraph for.

    tf.autograph.to_code(f, experimental_optional_features=tf.autograph.experimental.Feature.LISTS)
"""
import enum

__all__ = ["Feature", "feature_names"]


class Feature(enum.Enum):
    """Optional AutoGraph conversions (TensorFlow's names and values)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def feature_names(optional_features):
    """The names of `optional_features` (None, one Feature, or a collection of them), in the given order."""
    if optional_features is None:
        return ()
    if isinstance(optional_features, Feature):
        optional_features = (optional_features,)
    names = []
    for f in optional_features:
        if not isinstance(f, Feature):
            raise TypeError(f"experimental_optional_features must hold tf.autograph.experimental.Feature values, "
                            f"got {f!r}")
        if f.name not in names:
            names.append(f.name)
    return tuple(names)


API = {
    "autograph.experimental": ["Feature"],
}
