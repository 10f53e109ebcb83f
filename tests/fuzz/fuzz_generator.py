"""Random small TensorFlow programs for differential fuzzing, built from a table of public ops.

A program is Python source over `tf` (so a mismatch prints as a script anyone can run): inputs given as
literal arrays, variables created from literal arrays, and a body of statements, each defining one value
(`v3 = tf.reduce_sum(v1, axis=[0], keepdims=True)`) or updating a variable. The generator grows a body
one statement at a time and runs each new statement eagerly on a probe namespace, so it always knows the
dtype and shape of every value and picks ops whose argument kinds fit. A statement that raises ends the
body: the program then tests that tf.function raises the same exception class. A few statements are
built invalid on purpose (out-of-range indices, incompatible shapes, integer division by zero).

Sources are generated from this module's tables and numbers only -- nothing read from a file.
"""
import numpy as np

import tensorflux as tf

__all__ = ["Program", "Statement", "generate"]

FLOAT_UNARY = ("tf.abs", "tf.negative", "tf.square", "tf.exp", "tf.tanh", "tf.sin", "tf.cos", "tf.sigmoid",
               "tf.sqrt", "tf.math.log1p", "tf.round", "tf.floor", "tf.sign", "tf.nn.relu", "tf.math.softplus",
               "tf.math.reciprocal", "tf.math.log")
INT_UNARY = ("tf.abs", "tf.negative", "tf.square", "tf.sign")
NUM_BINARY = ("tf.add", "tf.subtract", "tf.multiply", "tf.maximum", "tf.minimum", "+", "-", "*")
FLOAT_BINARY = ("tf.divide", "tf.math.squared_difference", "tf.math.floormod", "/", "tf.math.divide_no_nan")
INT_BINARY = ("tf.math.floordiv", "tf.math.floormod", "//", "%", "/")
COMPARE = ("tf.greater", "tf.less", "tf.equal", "tf.not_equal", "tf.greater_equal", ">", "<=")
LOGICAL = ("tf.logical_and", "tf.logical_or", "tf.math.logical_xor")
NUM_REDUCE = ("tf.reduce_sum", "tf.reduce_mean", "tf.reduce_max", "tf.reduce_min", "tf.reduce_prod")
BOOL_REDUCE = ("tf.reduce_any", "tf.reduce_all")
GRAD_UNARY = ("tf.tanh", "tf.sin", "tf.square", "tf.sigmoid", "tf.abs", "tf.exp", "tf.nn.relu", "tf.cos")
INPUT_DTYPES = (("float32", 0.55), ("float64", 0.15), ("int32", 0.15), ("float16", 0.08), ("int64", 0.07))


class Statement:
    """Source lines (at body indentation 0) defining `target` (None: only updates variables), the names
    it reads, and the variables it writes."""

    __slots__ = ("lines", "target", "reads", "writes")

    def __init__(self, lines, target, reads, writes=()):
        self.lines = list(lines)
        self.target = target
        self.reads = frozenset(reads)
        self.writes = frozenset(writes)


class Program:
    """Inputs and variable initial values (NumPy arrays), the body and the names it returns."""

    def __init__(self, inputs, variables, body, returns, label="", raises=False):
        self.raises = raises          # its last statement raised when generated (an exception test)
        self.inputs = inputs          # {name: array}, in parameter order
        self.variables = variables    # {name: array}
        self.body = body
        self.returns = returns
        self.label = label

    def used_names(self):
        used = set(self.returns)
        for s in self.body:
            used |= s.reads | s.writes
        return used

    def source(self):
        used = self.used_names()
        inputs = {k: a for k, a in self.inputs.items() if k in used}
        variables = {k: a for k, a in self.variables.items() if k in used}
        lines = ["import numpy as np", "import tensorflux as tf", "",
                 f"INPUTS = [{', '.join(_literal(a) for a in inputs.values())}]"]
        lines += [f"VARIABLES = [{', '.join(_literal(a) for a in variables.values())}]", "", "",
                  "def make_program():"]
        lines += [f"    {k} = tf.Variable(VARIABLES[{i}])" for i, k in enumerate(variables)]
        lines.append(f"    def program({', '.join(inputs)}):")
        for s in self.body:
            lines += ["        " + line for line in s.lines]
        lines.append(f"        return ({''.join(r + ', ' for r in self.returns)})")
        lines.append(f"    return program, [{', '.join(variables)}]")
        return "\n".join(lines) + "\n"


def _literal(a):
    return f"np.array({a.tolist()!r}, dtype=np.{a.dtype.name})"


def _kind(dtype):
    return "bool" if dtype == np.bool_ else "int" if dtype.kind in "iu" else "float"


class _Builder:
    """Grows one program, probing every statement eagerly to learn its value's dtype and shape."""

    def __init__(self, rng):
        self.rng = rng
        self.namespace = {"tf": tf, "np": np}
        self.values = {}        # name -> (np dtype, shape) of tensors usable as arguments
        self.variables = {}     # name -> (np dtype, shape)
        self.count = 0

    # -- choices ---------------------------------------------------------------------------------
    def chance(self, p):
        return self.rng.random() < p

    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def pick(self, where=lambda dt, shape: True):
        names = [n for n, (dt, shape) in self.values.items() if where(dt, shape)]
        return self.choice(names) if names else None

    def new_name(self, prefix="v"):
        self.count += 1
        return f"{prefix}{self.count}"

    def scalar_literal(self, dtype):
        if _kind(dtype) == "int":
            return str(int(self.rng.integers(-3, 4)))
        return repr(float(self.choice((0.5, 1.5, -2.0, 0.25, 3.0, -0.75))))

    def array(self, dtype, shape):
        if _kind(dtype) == "int":
            return self.rng.integers(-5, 6, shape).astype(dtype)
        return (self.rng.integers(-24, 25, shape) / 8.0).astype(dtype)   # exact in every float dtype

    def shape(self):
        dims = [int(d) for d in self.rng.integers(1, 5, int(self.rng.integers(0, 4)))]
        if dims and self.chance(0.05):
            dims[int(self.rng.integers(len(dims)))] = 0    # an empty tensor
        return tuple(dims)

    # -- statements ------------------------------------------------------------------------------
    def unary(self):
        v = self.pick(lambda dt, s: dt != np.bool_)
        if v is None:
            return None
        ops = FLOAT_UNARY if _kind(self.values[v][0]) == "float" else INT_UNARY
        return f"{self.choice(ops)}({v})", [v]

    def binary(self):
        v = self.pick(lambda dt, s: dt != np.bool_)
        if v is None:
            return None
        dt, shape = self.values[v]
        ops = NUM_BINARY + (FLOAT_BINARY if _kind(dt) == "float" else INT_BINARY)
        op = self.choice(ops)
        other, reads = self.operand(v), [v]
        if other in self.values:
            reads.append(other)
        if _kind(dt) == "int" and op in ("tf.math.floordiv", "tf.math.floormod", "//", "%") and self.chance(0.3):
            other = "0"    # integer division by zero: InvalidArgumentError in TensorFlow
            if self.chance(0.5):
                other = f"tf.zeros_like({v})"
        if op in ("+", "-", "*", "/", "//", "%", ">", "<="):
            return f"{v} {op} {other}", reads
        return f"{op}({v}, {other})", reads

    def operand(self, v):
        """A second argument for `v`: another value that broadcasts with it, a tensor or Python scalar,
        or (rarely) a value whose shape cannot broadcast."""
        dt, shape = self.values[v]

        def broadcasts(other_dt, other_shape):
            if other_dt != dt:
                return False
            return all(a == b or a == 1 or b == 1 for a, b in zip(shape[::-1], other_shape[::-1]))
        r = self.rng.random()
        if r < 0.45:
            other = self.pick(broadcasts)
            if other is not None and other != v:
                return other
        if r < 0.5:
            other = self.pick(lambda odt, oshape: odt == dt and not broadcasts(odt, oshape))
            if other is not None:
                return other     # invalid on purpose: shapes that do not broadcast
        if r < 0.75:
            return f"tf.constant({self.scalar_literal(dt)}, dtype=tf.{dt.name})"
        return self.scalar_literal(dt)

    def compare(self):
        v = self.pick(lambda dt, s: dt != np.bool_)
        if v is None:
            return None
        op = self.choice(COMPARE)
        other = self.operand(v)
        reads = [v] + ([other] if other in self.values else [])
        if op in (">", "<="):
            return f"{v} {op} {other}", reads
        return f"{op}({v}, {other})", reads

    def logical(self):
        v = self.pick(lambda dt, s: dt == np.bool_)
        if v is None:
            return None
        if self.chance(0.3):
            return f"tf.logical_not({v})", [v]
        shape = self.values[v][1]
        w = self.pick(lambda dt, s: dt == np.bool_ and s == shape) or v
        return f"{self.choice(LOGICAL)}({v}, {w})", [v, w]

    def axis_text(self, rank, allow_list=True):
        if rank == 0 or self.chance(0.2):
            return "None"
        if allow_list and self.chance(0.3):
            axes = sorted(set(int(a) for a in self.rng.integers(0, rank, 2)))
            return repr(axes)
        axis = int(self.rng.integers(-rank, rank))
        if self.chance(0.03):
            axis = rank + 1      # invalid on purpose
        return str(axis)

    def reduce(self):
        v = self.pick()
        if v is None:
            return None
        dt, shape = self.values[v]
        if dt == np.bool_:
            op = self.choice(BOOL_REDUCE)
        elif len(shape) and self.chance(0.2):
            return f"{self.choice(('tf.argmax', 'tf.argmin'))}({v}, axis={int(self.rng.integers(-len(shape), len(shape)))})", [v]
        else:
            op = self.choice(NUM_REDUCE)
        keep = ", keepdims=True" if self.chance(0.3) else ""
        return f"{op}({v}, axis={self.axis_text(len(shape))}{keep})", [v]

    def cast(self):
        v = self.pick()
        if v is None:
            return None
        target = self.choice(("float32", "float64", "int32", "bool", "float16", "int64"))
        return f"tf.cast({v}, tf.{target})", [v]

    def matmul(self):
        v = self.pick(lambda dt, s: _kind(dt) in ("float", "int") and dt != np.int64 and len(s) in (2, 3))
        if v is None:
            return None
        dt, shape = self.values[v]
        w = self.pick(lambda odt, s: odt == dt and len(s) == len(shape) and s[-2] == shape[-1]
                      and s[:-2] == shape[:-2])
        if w is not None and self.chance(0.7):
            return f"tf.matmul({v}, {w})", [v, w]
        if self.chance(0.1):
            return f"tf.matmul({v}, {v})", [v]   # valid only for square matrices
        flags = self.choice(("transpose_b=True", "transpose_a=True"))
        return f"tf.matmul({v}, {v}, {flags})", [v]

    def reshape(self):
        v = self.pick(lambda dt, s: 0 not in s)
        if v is None:
            return None
        n = int(np.prod(self.values[v][1], dtype=np.int64))
        dims, rest = [], n
        for _ in range(int(self.rng.integers(0, 3))):
            divisors = [d for d in range(1, rest + 1) if rest % d == 0]
            d = self.choice(divisors)
            dims.append(d)
            rest //= d
        dims.append(rest)
        if self.chance(0.3):
            dims[int(self.rng.integers(len(dims)))] = -1
        if self.chance(0.03):
            dims[0] += 1          # invalid on purpose: the wrong number of elements
        return f"tf.reshape({v}, {dims!r})", [v]

    def transpose(self):
        v = self.pick(lambda dt, s: len(s) >= 2)
        if v is None:
            return None
        if self.chance(0.3):
            return f"tf.transpose({v})", [v]
        perm = [int(p) for p in self.rng.permutation(len(self.values[v][1]))]
        return f"tf.transpose({v}, perm={perm!r})", [v]

    def concat(self):
        v = self.pick(lambda dt, s: len(s) >= 1)
        if v is None:
            return None
        dt, shape = self.values[v]
        axis = int(self.rng.integers(len(shape)))
        w = self.pick(lambda odt, s: odt == dt and len(s) == len(shape)
                      and all(a == b for i, (a, b) in enumerate(zip(s, shape)) if i != axis)) or v
        if self.chance(0.5):
            axis -= len(shape)
        if self.chance(0.4):
            return f"tf.stack([{v}, {v}], axis={axis})", [v]
        return f"tf.concat([{v}, {w}], axis={axis})", [v, w]

    def gather(self):
        v = self.pick(lambda dt, s: len(s) >= 1 and 0 not in s)
        if v is None:
            return None
        shape = self.values[v][1]
        axis = int(self.rng.integers(len(shape)))
        indices = [int(i) for i in self.rng.integers(0, shape[axis], int(self.rng.integers(1, 5)))]
        if self.chance(0.05):
            indices[-1] = shape[axis] + 2    # invalid on purpose: out of range
        return f"tf.gather({v}, {indices!r}, axis={axis})", [v]

    def slicing(self):
        v = self.pick(lambda dt, s: len(s) >= 1 and 0 not in s)
        if v is None:
            return None
        shape = self.values[v][1]
        if self.chance(0.3):
            begin = [int(self.rng.integers(0, d)) for d in shape]
            size = [int(self.rng.integers(1, d - b + 1)) if self.chance(0.7) else -1 for b, d in zip(begin, shape)]
            return f"tf.slice({v}, {begin!r}, {size!r})", [v]
        parts = []
        for d in shape[:int(self.rng.integers(1, len(shape) + 1))]:
            r = self.rng.random()
            parts.append(":" if r < 0.25 else "::-1" if r < 0.4 else str(int(self.rng.integers(-d, d))) if r < 0.6
                         else f"{int(self.rng.integers(0, d))}:" if r < 0.8 else f":{int(self.rng.integers(1, d + 1))}")
        if self.chance(0.15):
            parts.insert(0, "...")
        return f"{v}[{', '.join(parts)}]", [v]

    def misc(self):
        v = self.pick(lambda dt, s: dt != np.bool_)
        if v is None:
            return None
        dt, shape = self.values[v]
        rank = len(shape)
        r = self.rng.random()
        if r < 0.25:
            return f"tf.expand_dims({v}, {int(self.rng.integers(-rank - 1, rank + 1))})", [v]
        if r < 0.45 and rank:
            multiples = [int(m) for m in self.rng.integers(1, 3, rank)]
            return f"tf.tile({v}, {multiples!r})", [v]
        if r < 0.6 and rank:
            return f"tf.reverse({v}, axis=[{int(self.rng.integers(rank))}])", [v]
        if r < 0.8 and rank:
            flags = "".join(f", {k}=True" for k in ("exclusive", "reverse") if self.chance(0.3))
            return f"tf.math.cumsum({v}, axis={int(self.rng.integers(-rank, rank))}{flags})", [v]
        low, high = sorted((self.scalar_literal(dt), self.scalar_literal(dt)), key=float)
        return f"tf.clip_by_value({v}, {low}, {high})", [v]

    def where(self):
        v = self.pick()
        if v is None:
            return None
        dt, shape = self.values[v]
        w = self.pick(lambda odt, s: odt == dt and s == shape)
        other = w if w is not None and w != v else f"tf.zeros_like({v})"
        reads = [v] + ([w] if other == w else [])
        cond = self.pick(lambda odt, s: odt == np.bool_ and s == shape)
        if cond is not None:
            return f"tf.where({cond}, {v}, {other})", reads + [cond]
        if dt == np.bool_:
            return f"tf.where({v}, {other}, {v})", reads
        return f"tf.where({v} > {self.scalar_literal(dt)}, {v}, {other})", reads

    def same_shape_expression(self, name, dt):
        """An expression of `name` with its dtype and shape (a cond branch or loop body)."""
        kind = _kind(dt)
        if kind == "bool":
            return self.choice((f"tf.logical_not({name})", f"tf.identity({name})"))
        if kind == "int":
            return self.choice((f"{name} * 2 - 1", f"tf.abs({name}) + 1", f"tf.negative({name})"))
        return self.choice((f"tf.tanh({name}) * 0.5 + {name}", f"{name} * 1.5 - 0.25", f"tf.sin({name})",
                            f"tf.square({name})", f"tf.negative({name})"))

    def cond(self):
        v, p = self.pick(), self.pick()
        if v is None:
            return None
        dt = self.values[v][0]
        pred = f"tf.reduce_sum(tf.cast({p}, tf.float32)) > 0.0"
        return (f"tf.cond({pred}, lambda: {self.same_shape_expression(v, dt)}, "
                f"lambda: {self.same_shape_expression(v, dt)})", [v, p])

    def while_loop(self):
        v = self.pick()
        if v is None:
            return None
        dt = self.values[v][0]
        trips = int(self.rng.integers(0, 5))
        body = self.same_shape_expression("a", dt)
        return f"tf.while_loop(lambda i, a: i < {trips}, lambda i, a: (i + 1, {body}), [tf.constant(0), {v}])[1]", [v]

    def python_if(self):
        """A Python `if` on a tensor: AutoGraph turns it into tf.cond when traced."""
        v, p = self.pick(), self.pick()
        if v is None:
            return None
        dt = self.values[v][0]
        target = self.new_name()
        lines = [f"if tf.reduce_sum(tf.cast({p}, tf.float32)) > 0.0:",
                 f"    {target} = {self.same_shape_expression(v, dt)}", "else:",
                 f"    {target} = {self.same_shape_expression(v, dt)}"]
        return Statement(lines, target, [v, p])

    def python_for(self):
        """A Python `for` over tf.range: AutoGraph turns it into tf.while_loop when traced."""
        v = self.pick()
        if v is None:
            return None
        target = self.new_name()
        body = self.same_shape_expression(target, self.values[v][0])
        return Statement([f"{target} = {v}", f"for i in tf.range({int(self.rng.integers(0, 4))}):",
                          f"    {target} = {body}"], target, [v])

    def large(self):
        """An elementwise chain over >= 2^18 elements: big enough for tf.function to fuse it."""
        v = self.pick(lambda dt, s: dt in (np.float16, np.float32, np.float64))
        if v is None:
            return None
        n = max(1, int(np.prod(self.values[v][1], dtype=np.int64)))
        repeats = -(-(1 << 18) // n)
        chain = self.choice(("tf.tanh({} * 1.5 + 0.25)", "tf.maximum(tf.exp({} * 0.5) - 1.0, 0.1) / 3.0",
                             "tf.sin({}) * tf.cos({} * 2.0) + {}", "tf.sqrt(tf.abs({} - 0.5)) * 2.0"))
        tiled = f"tf.tile(tf.reshape({v}, [-1]), [{repeats}])"
        big = self.new_name("big")
        target = self.new_name()
        return Statement([f"{big} = {tiled}", f"{target} = {chain.format(big, big, big)}"], target, [v])

    def dynamic_shape(self):
        """Values computed from a tensor's runtime shape (unknown while tracing with None dims)."""
        v = self.pick(lambda dt, s: len(s) >= 1)
        if v is None:
            return None
        return self.choice((f"tf.shape({v})", f"tf.size({v})", f"tf.zeros(tf.shape({v})) + tf.cast({v}, tf.float32)",
                            f"tf.reshape({v}, [tf.shape({v})[0], -1])", f"tf.fill(tf.shape({v}), 2.5)",
                            f"tf.rank({v})", f"tf.ones_like({v})")), [v]

    def variable_update(self):
        if not self.variables:
            return None
        var = self.choice(sorted(self.variables))
        dt, shape = self.variables[var]
        w = self.pick(lambda odt, s: odt == dt and (s == shape or self.chance(0.03)))
        if w is None:
            return None
        method = self.choice(("assign", "assign_add", "assign_sub") if _kind(dt) != "bool" else ("assign",))
        return Statement([f"{var}.{method}({w})"], None, [var, w], [var])

    def variable_read(self):
        if not self.variables:
            return None
        var = self.choice(sorted(self.variables))
        dt = self.variables[var][0]
        return self.choice((f"{var}.read_value()", f"tf.identity({var})",
                            f"{var} * {self.scalar_literal(dt)}", f"tf.reduce_sum({var})")), [var]

    def gradient(self):
        sources = [n for n, (dt, s) in {**self.values, **self.variables}.items()
                   if dt in (np.float32, np.float64) and (n.startswith("x") or n in self.variables)]
        if not sources:
            return None
        source = self.choice(sources)
        dt, shape = ({**self.values, **self.variables})[source]
        k = self.new_name("")
        tape, lines = f"tape{k}", []
        lines.append(f"with tf.GradientTape() as tape{k}:")
        if source not in self.variables:
            lines.append(f"    {tape}.watch({source})")
        current, reads = source, [source]
        for step in range(int(self.rng.integers(1, 4))):
            name = f"g{k}_{step}"
            r = self.rng.random()
            other = self.pick(lambda odt, s: odt == dt and s == shape)
            if r < 0.5 or other is None:
                expr = f"{self.choice(GRAD_UNARY)}({current})"
            elif r < 0.8:
                # stop_gradient: a value made before the tape may be the watched tensor itself when eager
                # (a while_loop of 0 trips returns its input), and TensorFlow's eager and traced gradients
                # then differ by design; the fuzzer is after tensorflux's own differences.
                expr = f"{current} {self.choice(('*', '+', '-'))} tf.stop_gradient({other})"
                reads.append(other)
            elif len(shape) == 2:
                expr = f"tf.matmul({current}, {current}, transpose_b=True)"
            else:
                expr = f"tf.where({current} > 0.0, {current}, {current} * 0.1)"
            lines.append(f"    {name} = {expr}")
            current = name
        lines.append(f"    loss{k} = tf.reduce_sum({current})")
        target = f"v{k}"
        lines.append(f"{target} = {tape}.gradient(loss{k}, {source})")
        return Statement(lines, target, reads)

    GENERATORS = (("unary", 14), ("binary", 16), ("compare", 5), ("logical", 3), ("reduce", 10), ("cast", 4),
                  ("matmul", 5), ("reshape", 5), ("transpose", 4), ("concat", 4), ("gather", 4), ("slicing", 6),
                  ("misc", 5), ("where", 4), ("cond", 3), ("while_loop", 3), ("variable_update", 4),
                  ("variable_read", 3), ("gradient", 5), ("python_if", 3), ("python_for", 3), ("large", 2),
                  ("dynamic_shape", 3))

    def statement(self):
        names = [n for n, _ in self.GENERATORS]
        weights = np.array([w for _, w in self.GENERATORS], float)
        made = getattr(self, names[int(self.rng.choice(len(names), p=weights / weights.sum()))])()
        if made is None or isinstance(made, Statement):
            return made
        expr, reads = made
        target = self.new_name()
        return Statement([f"{target} = {expr}"], target, reads)

    def probe(self, statement):
        """Runs the statement eagerly; False when it raised (the statement then ends the body)."""
        try:
            exec(compile("\n".join(statement.lines), "<fuzz probe>", "exec"), self.namespace)
        except Exception:
            return False
        if statement.target is not None:
            value = self.namespace[statement.target]
            if isinstance(value, tf.Tensor):
                self.values[statement.target] = (np.dtype(value.dtype.as_numpy_dtype), tuple(value.shape))
        return True


def generate(rng, label=""):
    """A random program from `rng` (a numpy Generator): 1-3 inputs, 0-2 variables, 2-9 statements."""
    b = _Builder(rng)
    inputs, variables = {}, {}
    names, probs = zip(*INPUT_DTYPES)
    for k in range(int(rng.integers(1, 4))):
        dt = np.dtype(names[int(rng.choice(len(names), p=probs))])
        shape = b.shape() if k == 0 or b.chance(0.5) else b.values["x0"][1]
        inputs[f"x{k}"] = b.array(dt, shape)
        b.values[f"x{k}"] = (dt, shape)
        b.namespace[f"x{k}"] = tf.constant(inputs[f"x{k}"])
    for k in range(int(rng.choice(3, p=(0.5, 0.35, 0.15)))):
        dt, shape = b.values[b.choice(sorted(b.values))]
        variables[f"var{k}"] = b.array(dt, shape)
        b.variables[f"var{k}"] = (dt, shape)
        b.namespace[f"var{k}"] = tf.Variable(variables[f"var{k}"])
    body, defined, ok = [], [], True
    for _ in range(int(rng.integers(2, 10))):
        s = b.statement()
        if s is None:
            continue
        body.append(s)
        ok = b.probe(s)
        if s.target is not None:
            defined.append(s.target)
        if not ok:
            break
    returns = [n for n in defined[:-1] if b.chance(0.6)] + defined[-1:]
    return Program(inputs, variables, body, returns, label, raises=not ok)
