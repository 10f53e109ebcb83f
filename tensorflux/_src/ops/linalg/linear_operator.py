"""`tf.linalg.LinearOperator` and its basic operators: FullMatrix, Diag, Identity, ScaledIdentity,
LowerTriangular, Zeros, and the operators made from others: Adjoint, Inversion, Composition.

Every operator describes a batch of matrices ([..., M, N]) by a few tensors and can always produce its dense
matrix (`to_dense`); the base class computes matmul/solve/determinant/diag_part/trace/eigvals/cholesky from
that dense matrix with the linalg ops (so gradients flow), and operators with cheaper exact forms (a
diagonal solves by division, the identity by copying) override those paths. The hints `is_non_singular`,
`is_self_adjoint`, `is_positive_definite` and `is_square` are checked for consistency as TensorFlow does.
"""
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..shapes import creators as _creators
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import reduce as _reduce
from ..array import creation as _creation
from .matrix import matmul, adjoint as _adjoint, det, slogdet, solve, cholesky, diag, diag_part, band_part, inv
from .decompositions import eig, eigvalsh, svd
from .structured import triangular_solve


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


class LinearOperator:
    """Base class of `tf.linalg.LinearOperator*`: a (batch of) matrix described without storing it densely.

    Subclasses implement `_shape()` (a TensorShape [..., M, N]) and `_to_dense()`."""

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None, parameters=None, graph_parents=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = _dt.as_dtype(dtype) if dtype is not None else None
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- description ------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        if self._is_square_hint is not None:
            return self._is_square_hint
        shape = self.shape
        if shape.rank is None or shape._dims[-1] is None or shape._dims[-2] is None:
            return None
        return shape._dims[-1] == shape._dims[-2]

    @property
    def shape(self):
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        shape = self.shape
        if shape.is_fully_defined():
            return convert_to_tensor(shape.as_list(), dtype=_dt.int32)
        return _shape_ops.shape(self.to_dense())

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.rank

    @property
    def domain_dimension(self):
        return self.shape.dims[-1] if self.shape.rank is not None else None

    @property
    def range_dimension(self):
        return self.shape.dims[-2] if self.shape.rank is not None else None

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self.shape_tensor()[-1]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self.shape_tensor()[-2]

    def __repr__(self):
        return f"<tf.linalg.{type(self).__name__} '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    # -- the dense matrix and what follows from it -------------------------------------------------
    def to_dense(self, name="to_dense"):
        return self._to_dense()

    def _to_dense(self):
        raise NotImplementedError(f"{type(self).__name__} does not define its dense matrix")

    def _shape(self):
        raise NotImplementedError(f"{type(self).__name__} does not define its shape")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """self @ x (adjoint(self) with `adjoint`, adjoint(x) with `adjoint_arg`); an operator x gives a
        LinearOperatorComposition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        x = _tensor(x, self.dtype)
        self._check_inner(x, adjoint, adjoint_arg)
        return self._matmul(x, adjoint, adjoint_arg)

    def _check_inner(self, x, adjoint, adjoint_arg):
        own = self.range_dimension if adjoint else self.domain_dimension
        rank = x.shape.rank
        other = (x.shape._dims[-1] if adjoint_arg else x.shape._dims[-2]) if rank is not None and rank >= 2 else None
        if own is not None and other is not None and own != other:
            raise ValueError(f"Dimensions {own} and {other} are not compatible")

    def _matmul(self, x, adjoint, adjoint_arg):
        return matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        x = _tensor(x, self.dtype)
        return _shaping.squeeze(self.matmul(_shaping.expand_dims(x, -1), adjoint=adjoint), axis=[-1])

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with self @ X = rhs (adjoint(self) with `adjoint`)."""
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be "
                                      "singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be "
                                      "square.")
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            return LinearOperatorComposition([left.inverse(), rhs.adjoint() if adjoint_arg else rhs])
        rhs = _tensor(rhs, self.dtype)
        if adjoint_arg:
            rhs = _adjoint(rhs)
        return self._solve(rhs, adjoint)

    def _solve(self, rhs, adjoint):
        return solve(self.to_dense(), rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        rhs = _tensor(rhs, self.dtype)
        return _shaping.squeeze(self.solve(_shaping.expand_dims(rhs, -1), adjoint=adjoint), axis=[-1])

    def determinant(self, name="det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be "
                                      "square.")
        return self._determinant()

    def _determinant(self):
        return det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be "
                                      "square.")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return slogdet(self.to_dense())[1]

    def diag_part(self, name="diag_part"):
        return self._diag_part()

    def _diag_part(self):
        return diag_part(self.to_dense())

    def trace(self, name="trace"):
        return _reduce.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        return _math.add(self.to_dense(), _tensor(x, self.dtype))

    def eigvals(self, name="eigvals"):
        if self.is_self_adjoint:
            return eigvalsh(self.to_dense())
        return eig(self.to_dense())[0]

    def cond(self, name="cond"):
        s = svd(self.to_dense(), compute_uv=False)
        return _math.divide(_reduce.reduce_max(s, axis=-1), _reduce.reduce_min(s, axis=-1))

    def adjoint(self, name=None):
        if self.is_self_adjoint:
            return self
        return LinearOperatorAdjoint(self)

    H = property(lambda self: self.adjoint())

    def inverse(self, name=None):
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        if not self.is_positive_definite or not self.is_self_adjoint:
            raise ValueError("Cholesky decomposition is only defined for linear operators that are positive "
                             "definite and self-adjoint.")
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True)

    def assert_non_singular(self, name="assert_non_singular"):
        return None

    def assert_positive_definite(self, name="assert_positive_definite"):
        return None

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        return None


class LinearOperatorFullMatrix(LinearOperator):
    """A LinearOperator holding its matrix [..., M, N] densely."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = _tensor(matrix)
        if self._matrix.shape.rank is not None and self._matrix.shape.rank < 2:
            raise ValueError(f"Argument matrix must have at least 2 dimensions. Received: {self._matrix}")
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, {"matrix": matrix})

    def _shape(self):
        return self._matrix.shape

    def _to_dense(self):
        return self._matrix


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of `tril` [..., N, N] (the rest is ignored); solves by substitution."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        self._tril = band_part(_tensor(tril), -1, 0)
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, {"tril": tril})

    def _shape(self):
        return self._tril.shape

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint):
        return triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return _reduce.reduce_prod(diag_part(self._tril), axis=-1)

    def _log_abs_determinant(self):
        return _reduce.reduce_sum(_math.log(_math.abs(diag_part(self._tril))), axis=-1)


class LinearOperatorDiag(LinearOperator):
    """diag(d) for d [..., N]: products and solves are elementwise."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorDiag"):
        self._diag = _tensor(diag)
        if self._diag.shape.rank is not None and self._diag.shape.rank < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {self._diag}")
        if is_self_adjoint is None and not self._diag.dtype.is_complex:
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"diag": diag})

    def _shape(self):
        dims = self._diag.shape
        if dims.rank is None:
            return TensorShape(None)
        return TensorShape(dims.as_list() + [dims.as_list()[-1]])

    def _to_dense(self):
        return diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _matmul(self, x, adjoint, adjoint_arg):
        d = _math.conj(self._diag) if adjoint and self._diag.dtype.is_complex else self._diag
        x = _adjoint(x) if adjoint_arg else x
        return _math.multiply(_shaping.expand_dims(d, -1), x)

    def _solve(self, rhs, adjoint):
        d = _math.conj(self._diag) if adjoint and self._diag.dtype.is_complex else self._diag
        return _math.divide(rhs, _shaping.expand_dims(d, -1))

    def _determinant(self):
        return _reduce.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return _reduce.reduce_sum(_math.log(_math.abs(self._diag)), axis=-1)

    def inverse(self, name=None):
        return LinearOperatorDiag(_math.reciprocal(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite)


def _batch_dims(batch_shape):
    return [] if batch_shape is None else [int(d) for d in batch_shape]


class LinearOperatorScaledIdentity(LinearOperator):
    """multiplier * I of size num_rows (a batch of multipliers gives a batch of operators)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        self._num_rows = int(num_rows)
        self._multiplier = _tensor(multiplier)
        if is_self_adjoint is None and not self._multiplier.dtype.is_complex:
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name, {"num_rows": num_rows, "multiplier": multiplier})

    def _shape(self):
        return TensorShape(self._multiplier.shape.as_list() + [self._num_rows, self._num_rows])

    @property
    def multiplier(self):
        return self._multiplier

    def _diag_part(self):
        ones = _creators.ones(self._multiplier.shape.as_list() + [self._num_rows], dtype=self.dtype)
        return _math.multiply(ones, _shaping.expand_dims(self._multiplier, -1))

    def _to_dense(self):
        return diag(self._diag_part())

    def _matmul(self, x, adjoint, adjoint_arg):
        m = _math.conj(self._multiplier) if adjoint and self.dtype.is_complex else self._multiplier
        x = _adjoint(x) if adjoint_arg else x
        return _math.multiply(_shaping.expand_dims(_shaping.expand_dims(m, -1), -1), x)

    def _solve(self, rhs, adjoint):
        m = _math.conj(self._multiplier) if adjoint and self.dtype.is_complex else self._multiplier
        return _math.divide(rhs, _shaping.expand_dims(_shaping.expand_dims(m, -1), -1))

    def _determinant(self):
        return _math.pow(self._multiplier, _math.cast(self._num_rows, self.dtype))

    def _log_abs_determinant(self):
        return _math.multiply(_math.log(_math.abs(self._multiplier)),
                              _math.cast(self._num_rows, self._multiplier.dtype.real_dtype))


class LinearOperatorIdentity(LinearOperator):
    """The identity of size num_rows (optionally a batch of them)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        for flag, what in ((is_non_singular, "non_singular"), (is_self_adjoint, "self_adjoint"),
                           (is_positive_definite, "positive_definite"), (is_square, "square")):
            if not flag:
                raise ValueError(f"An identity operator is always {what.replace('_', '-')}.")
        self._num_rows = int(num_rows)
        self._batch = _batch_dims(batch_shape)
        super().__init__(dtype or _dt.float32, True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return TensorShape(self._batch + [self._num_rows, self._num_rows])

    def _to_dense(self):
        return _creation.eye(self._num_rows, batch_shape=self._batch or None, dtype=self.dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        return _adjoint(x) if adjoint_arg else x

    def _solve(self, rhs, adjoint):
        return rhs

    def _determinant(self):
        return _creators.ones(self._batch, dtype=self.dtype)

    def _log_abs_determinant(self):
        return _creators.zeros(self._batch, dtype=self.dtype)

    def _diag_part(self):
        return _creators.ones(self._batch + [self._num_rows], dtype=self.dtype)


class LinearOperatorZeros(LinearOperator):
    """The zero matrix num_rows x num_columns (square unless num_columns differs)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is always not positive definite.")
        self._num_rows = int(num_rows)
        self._num_columns = int(num_columns) if num_columns is not None else self._num_rows
        self._batch = _batch_dims(batch_shape)
        square = self._num_rows == self._num_columns
        super().__init__(dtype or _dt.float32, False, is_self_adjoint if square else False, False, square, name,
                         {"num_rows": num_rows, "num_columns": num_columns, "batch_shape": batch_shape,
                          "dtype": dtype})

    def _shape(self):
        return TensorShape(self._batch + [self._num_rows, self._num_columns])

    def _to_dense(self):
        return _creators.zeros(self._batch + [self._num_rows, self._num_columns], dtype=self.dtype)

    def _determinant(self):
        return _creators.zeros(self._batch, dtype=self.dtype)

    def _log_abs_determinant(self):
        return _math.log(_creators.zeros(self._batch, dtype=self.dtype))


class LinearOperatorAdjoint(LinearOperator):
    """adjoint(operator), computed through the operator's own adjoint products and solves."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._operator = operator
        super().__init__(operator.dtype, operator.is_non_singular if is_non_singular is None else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None else is_positive_definite,
                         operator.is_square if is_square is None else is_square, name or operator.name + "_adjoint",
                         {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        shape = self._operator.shape
        if shape.rank is None:
            return shape
        dims = shape.as_list()
        return TensorShape(dims[:-2] + [dims[-1], dims[-2]])

    def _to_dense(self):
        return _adjoint(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator.solve(rhs, adjoint=not adjoint)

    def _determinant(self):
        value = self._operator.determinant()
        return _math.conj(value) if value.dtype.is_complex else value

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()


class LinearOperatorInversion(LinearOperator):
    """inverse(operator): products are the operator's solves and solves its products."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and supplied hints must be non-singular")
        self._operator = operator
        super().__init__(operator.dtype, operator.is_non_singular if is_non_singular is None else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None else is_positive_definite,
                         operator.is_square if is_square is None else is_square, name or operator.name + "_inv",
                         {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _to_dense(self):
        return inv(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint):
        return self._operator.matmul(rhs, adjoint=adjoint)

    def _determinant(self):
        return _math.reciprocal(self._operator.determinant())

    def _log_abs_determinant(self):
        return _math.negative(self._operator.log_abs_determinant())


class LinearOperatorComposition(LinearOperator):
    """operators[0] @ operators[1] @ ... applied right to left, never formed densely for products."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        dtypes = {op.dtype for op in operators}
        if len(dtypes) > 1:
            raise TypeError(f"Expected all operators to have the same dtype.  Found {sorted(d.name for d in dtypes)}")
        self._operators = operators
        if is_non_singular is None and all(op.is_non_singular for op in operators):
            is_non_singular = True
        super().__init__(operators[0].dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(op.name for op in operators), {"operators": operators})

    @property
    def operators(self):
        return list(self._operators)

    def _shape(self):
        first, last = self._operators[0].shape, self._operators[-1].shape
        if first.rank is None or last.rank is None:
            return TensorShape(None)
        batch = TensorShape(first.as_list()[:-2])
        for op in self._operators[1:]:
            batch = broadcast_shape(batch, TensorShape(op.shape.as_list()[:-2]))
        return TensorShape(batch.as_list() + [first.as_list()[-2], last.as_list()[-1]])

    def _to_dense(self):
        result = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            result = op.matmul(result)
        return result

    def _matmul(self, x, adjoint, adjoint_arg):
        result = _adjoint(x) if adjoint_arg else x
        order = self._operators if adjoint else list(reversed(self._operators))
        for op in order:
            result = op.matmul(result, adjoint=adjoint)
        return result

    def _solve(self, rhs, adjoint):
        result = rhs
        order = list(reversed(self._operators)) if adjoint else self._operators
        for op in order:
            result = op.solve(result, adjoint=adjoint)
        return result

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = _math.multiply(result, op.determinant())
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result = _math.add(result, op.log_abs_determinant())
        return result


API = {
    "linalg": ["LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorLowerTriangular", "LinearOperatorDiag",
               "LinearOperatorScaledIdentity", "LinearOperatorIdentity", "LinearOperatorZeros",
               "LinearOperatorAdjoint", "LinearOperatorInversion", "LinearOperatorComposition"],
}
