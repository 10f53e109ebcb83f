"""`tf.VariableAggregation` and `tf.VariableSynchronization`: how a distributed variable's replica updates
combine and when its copies are synchronised (the values TensorFlow stores in a SavedModel's variables)."""
import enum

__all__ = ["VariableAggregation", "VariableSynchronization"]


class VariableAggregation(enum.Enum):
    """How updates from the replicas of a distributed variable are combined."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation.__name__ = VariableAggregation.__qualname__ = "VariableAggregationV2"   # TensorFlow's


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronised."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


API = {"": __all__}
