"""tf.types.experimental's abstract types, as TensorFlow 2.21 answers isinstance for them (recorded):
tf.function objects and their concrete functions are Callables, a concrete function's `function_type` is a
FunctionType, an object with `__tf_tracing_type__` supports the tracing protocol, and TensorLike is the
union of the values ops convert."""
import numpy as np

import tensorflux as tf

te = tf.types.experimental


def test_functions_are_callables_with_a_function_type():
    f = tf.function(lambda x: x)
    c = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert isinstance(f, te.Callable) and isinstance(c, te.Callable)   # TF: True, True
    assert isinstance(c.function_type, te.FunctionType)                # TF: True
    assert not isinstance(lambda x: x, te.Callable)
    assert issubclass(te.PolymorphicFunction, te.Callable) and issubclass(te.ConcreteFunction, te.Callable)


def test_tracing_protocol_is_checked_at_run_time():
    class Traced:
        def __tf_tracing_type__(self, context):
            return None
    assert isinstance(Traced(), te.SupportsTracingProtocol)            # TF: True
    assert not isinstance(1, te.SupportsTracingProtocol)               # TF: False


def test_tensor_like_is_the_union_of_convertible_values():
    # TF's union: Tensor, TensorProtocol, int, float, bool, str, bytes, complex, tuple, list, ndarray, generic
    members = te.TensorLike.__args__
    assert members[1:] == (int, float, bool, str, bytes, complex, tuple, list, np.ndarray, np.generic)
    assert issubclass(type(tf.constant(1.0)), members[0])
