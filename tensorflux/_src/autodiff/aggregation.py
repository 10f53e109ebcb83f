"""`tf.AggregationMethod`: how `tf.gradients` adds the gradients an op's output receives from several
consumers. tensorflux always adds them pairwise in one AddN (ADD_N); the other methods give the same sums."""

__all__ = ["AggregationMethod"]


class AggregationMethod:
    """The gradient aggregation methods `tf.gradients(..., aggregation_method=)` accepts."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


API = {"": __all__}
