"""`tf.autograph.to_code`: a function's converted code in TensorFlow's generated form.

TensorFlow shows users the code its AutoGraph generates (`def tf__f(...)` inside an `ag__.FunctionScope`,
returns lowered to `do_return`/`retval_`, control flow as `ag__.if_stmt`/`while_stmt`/`for_stmt` over
get_state/set_state closures, calls as `ag__.converted_call`, variable reads as `ag__.ld`). This module
produces that text from the function's source with the same sequence of rewrites, in the same order:

    functions → break → continue → return → lists (optional) → calls      (generated_code_lowering)
    → control flow → conditional expressions → logical expressions → variable reads     (here)

Names the rewrites introduce come from one namer, so suffixes (`get_state_1`, `break_1`) follow
TensorFlow's allocation order. A control-flow statement's state variables are the names it binds that
are live into or out of it, outputs first, then sorted; names it binds that may be undefined before it
get an `ag__.Undefined` placeholder (see `generated_code_analysis`).

The text is what `to_code` and the `set_verbosity` logs show, and the code that runs for `to_graph` and for
functions that call a debugger (`generated_module` compiles it from a temporary file, against
`generated_runtime`'s `ag__`). Other conversions run tensorflux's leaner form of the same function
(`api.convert`), which has the same semantics and maps errors to the user's own lines.

    print(tf.autograph.to_code(f))
"""
import ast
import inspect
import textwrap

from . import generated_code_lowering as _low
from .errors import UnsupportedLanguageElementError
from .transformers.expressions import calls_debugger, warn_set_trace
from .transformers.lambdas import lambda_candidates
from .generated_code_analysis import analyse_function, bound_names

__all__ = ["generated_code", "generated_node"]


def generated_code(fn, features=()):
    """TensorFlow's generated source for the plain function `fn` (raises OSError/TypeError/SyntaxError
    when its source is unavailable, UnsupportedLanguageElementError for a loop with `else`)."""
    return ast.unparse(generated_node(fn, features)) + "\n"


def generated_node(fn, features=()):
    """The syntax tree of `generated_code` (locations filled in): `def tf__<name>(...)`, or for a lambda
    the statement `tf__lam = lambda ...: ...`."""
    if fn.__name__ == "<lambda>":
        return _generated_lambda(fn, features)
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TypeError(f"{fn!r} is not defined by a def statement")
    if calls_debugger(node):   # TensorFlow's warning comes with the conversion, to_code's too
        warn_set_trace()
    reserved = set(getattr(fn, "__globals__", {})) | set(fn.__code__.co_freevars)
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            n.ag_original = True   # only reads written by the user become ag__.ld(...)
            reserved.add(n.id)
        elif isinstance(n, ast.arg):
            reserved.add(n.arg)
    for n in ast.walk(node):
        if isinstance(n, ast.ExceptHandler) and n.type is not None:   # exception classes are read as they are
            for name in ast.walk(n.type):
                name.ag_original = False
    # The generated def's defaults are placeholders: the converted function gets the original's values.
    node.args.defaults = [ast.Constant(None) for _ in node.args.defaults]
    node.args.kw_defaults = [ast.Constant(None) if d is not None else None for d in node.args.kw_defaults]
    for n in ast.walk(node):
        if isinstance(n, (ast.While, ast.For)) and n.orelse:   # TensorFlow does not convert these
            raise UnsupportedLanguageElementError(f"{type(n).__name__.lower()}/else statement not yet supported")
    features = tuple(features)
    namer = _low.Namer(reserved)
    node = _low.lower(node, namer, features)
    _ControlFlow(namer).function(node)
    node = _ConditionalExpressions().visit(node)
    node = _LogicalExpressions(features).visit(node)
    node = _Variables().visit(node)
    node.name = "tf__" + node.name
    return ast.fix_missing_locations(node)


def _generated_lambda(fn, features):
    """TensorFlow's form of a lambda: its body's calls, conditional and logical expressions converted (its
    reads stay plain), inside `ag__.with_function_scope`:

        tf__lam = lambda x: ag__.with_function_scope(lambda lscope: ag__.not_(x), 'lscope', ...)
    """
    candidates = lambda_candidates(fn)
    if len(candidates) != 1:
        raise TypeError(f"{fn!r}: {len(candidates)} lambdas of its line take its parameters")
    lam = candidates[0]
    reserved = set(getattr(fn, "__globals__", {})) | set(fn.__code__.co_freevars)
    reserved.update(n.id for n in ast.walk(lam) if isinstance(n, ast.Name))
    reserved.update(n.arg for n in ast.walk(lam) if isinstance(n, ast.arg))
    scope = _low.Namer(reserved).new("lscope")
    calls = _low.Calls(features)
    calls.scopes.append(scope)
    body = calls.visit(lam.body)
    body = _ConditionalExpressions().visit(body)
    body = _LogicalExpressions(features).visit(body)
    args = lam.args   # the defaults are placeholders, as a def's: the converted lambda gets the original's
    args.defaults = [ast.Constant(None) for _ in args.defaults]
    args.kw_defaults = [ast.Constant(None) if d is not None else None for d in args.kw_defaults]
    scoped = _low.ag_call("with_function_scope", [
        ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=scope)], vararg=None, kwonlyargs=[],
                                      kw_defaults=[], kwarg=None, defaults=[]), body=body),
        ast.Constant(scope), _low.expr(_low.options_source(tuple(features)))])
    node = ast.Assign(targets=[_low.name_("tf__lam", True)], value=ast.Lambda(args=args, body=scoped))
    return ast.fix_missing_locations(ast.copy_location(node, lam))


def _declared(fn_node):
    """(global names, nonlocal names) declared in the function's own body."""
    globals_, nonlocals = set(), set()
    stack = list(fn_node.body)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Global):
            globals_.update(s.names)
        elif isinstance(s, ast.Nonlocal):
            nonlocals.update(s.names)
        elif not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.extend(c for c in ast.iter_child_nodes(s) if isinstance(c, (ast.stmt, ast.excepthandler)))
    return globals_, nonlocals


class _Scope:
    def __init__(self, facts, globals_, nonlocals):
        self.facts = facts
        self.globals = globals_
        self.nonlocals = nonlocals


class _ControlFlow:
    """if/while/for → state functions, body functions and one ag__ operator call (post-order)."""

    def __init__(self, namer):
        self.namer = namer

    def function(self, fn_node, outer_defined=()):
        globals_, nonlocals = _declared(fn_node)
        scope = _Scope(analyse_function(fn_node, outer_defined), globals_, nonlocals)
        fn_node.body = self._block(fn_node.body, scope)

    def _block(self, stmts, scope):
        return _low.flat([self._stmt(s, scope) for s in stmts])

    def _stmt(self, s, scope):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(s)
            return s
        # What the statement binds is read before its nested statements become functions.
        if isinstance(s, ast.If):
            modified = _union(bound_names(s.body), bound_names(s.orelse)) + _composites(s.body + s.orelse)
        elif isinstance(s, ast.For):
            modified = _union(bound_names(s.body),
                              bound_names([ast.Assign(targets=[s.target], value=ast.Constant(None))]))
            modified += _composites(s.body)
        else:
            modified = bound_names(getattr(s, "body", [])) + _composites(getattr(s, "body", []))
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(s, field, self._block(block, scope))
        for handler in getattr(s, "handlers", ()):
            handler.body = self._block(handler.body, scope)
        if isinstance(s, ast.If):
            return _located(self._if(s, modified, scope), s)
        if isinstance(s, ast.While):
            return _located(self._while(s, modified, scope), s)
        if isinstance(s, ast.For):
            return _located(self._for(s, modified, scope), s)
        return s

    def _block_vars(self, node, modified, scope):
        facts = scope.facts
        live_in, live_out = facts.live_in[id(node)], facts.live_out[id(node)]
        defined_in = facts.defined_in[id(node)]
        basic = [v for v in modified if isinstance(v, str) and
                 (v in live_in or v in live_out or v in scope.nonlocals)]
        # An attribute or item (`obj.a`, `d['k']`) is state when the names it hangs from are live in:
        # otherwise it belongs to an object made inside the statement.
        composite = [v for v in modified if isinstance(v, _Composite) and v.support <= live_in]
        input_only = {v for v in basic if v in live_in and v not in live_out}
        state = sorted(basic + composite, key=lambda v: (v in input_only, str(v)))
        undefined = [v for v in modified if isinstance(v, str) and v not in defined_in and v not in scope.globals
                     and v not in scope.nonlocals]
        return state, undefined, len(state) - len(input_only)

    @staticmethod
    def _declarations(names, scope):
        globals_ = [n for n in names if isinstance(n, str) and n in scope.globals]
        others = [n for n in names if isinstance(n, str) and n not in scope.globals]
        return ([ast.Global(names=globals_)] if globals_ else []) + \
            ([ast.Nonlocal(names=others)] if others else [])

    def _state_functions(self, state, scope, getter, setter):
        if not state:
            return [_low.def_(getter, [], [ast.Return(value=ast.Tuple(elts=[], ctx=ast.Load()))]),
                    _low.def_(setter, ["block_vars"], [ast.Pass()])]
        values = ast.Tuple(elts=[v.load() if isinstance(v, _Composite) else _low.name_(v) for v in state],
                           ctx=ast.Load())
        targets = ast.Tuple(elts=[v.store() if isinstance(v, _Composite) else _low.name_(v, True) for v in state],
                            ctx=ast.Store())
        return [_low.def_(getter, [], [ast.Return(value=values)]),
                _low.def_(setter, ["vars_"], self._declarations(state, scope) +
                          [ast.Assign(targets=[targets], value=_low.name_("vars_"))])]

    @staticmethod
    def _undefined(names):
        return [_low.assign(n, _low.ag_call("Undefined", [ast.Constant(n)])) for n in names]

    @staticmethod
    def _symbols(state):
        return ast.Tuple(elts=[ast.Constant(str(v)) for v in state], ctx=ast.Load())

    def _if(self, node, modified, scope):
        state, undefined, nouts = self._block_vars(node, modified, scope)
        declarations = self._declarations(state, scope)
        getter, setter = self.namer.new("get_state"), self.namer.new("set_state")
        out = self._state_functions(state, scope, getter, setter)
        body_name, orelse_name = self.namer.new("if_body"), self.namer.new("else_body")
        out.append(_low.def_(body_name, [], declarations + node.body))
        out.append(_low.def_(orelse_name, [], declarations + (node.orelse or [ast.Pass()])))
        out += self._undefined(undefined)
        out.append(ast.Expr(_low.ag_call("if_stmt", [
            node.test, _low.name_(body_name), _low.name_(orelse_name), _low.name_(getter), _low.name_(setter),
            self._symbols(state), ast.Constant(nouts)])))
        return out

    def _while(self, node, modified, scope):
        state, undefined, _ = self._block_vars(node, modified, scope)
        declarations = self._declarations(state, scope)
        getter, setter = self.namer.new("get_state"), self.namer.new("set_state")
        out = self._state_functions(state, scope, getter, setter)
        body_name, test_name = self.namer.new("loop_body"), self.namer.new("loop_test")
        out.append(_low.def_(body_name, [], declarations + node.body))
        out.append(_low.def_(test_name, [], [ast.Return(value=node.test)]))
        out += self._undefined(undefined)
        out.append(ast.Expr(_low.ag_call("while_stmt", [
            _low.name_(test_name), _low.name_(body_name), _low.name_(getter), _low.name_(setter),
            self._symbols(state), ast.Dict(keys=[], values=[])])))
        return out

    def _for(self, node, modified, scope):
        state, undefined, _ = self._block_vars(node, modified, scope)
        declarations = self._declarations(state, scope)
        getter, setter = self.namer.new("get_state"), self.namer.new("set_state")
        out = self._state_functions(state, scope, getter, setter)
        extra = getattr(node, "ag_extra_test", None)
        extra_name = self.namer.new("extra_test") if extra is not None else None
        iterate = self.namer.new("itr")
        body_name = self.namer.new("loop_body")
        out.append(_low.def_(body_name, [iterate], declarations +
                             [ast.Assign(targets=[node.target], value=_low.name_(iterate))] + node.body))
        if extra is not None:
            out.append(_low.def_(extra_name, [], declarations + [ast.Return(value=extra)]))
        out += self._undefined(undefined)
        options = ast.Dict(keys=[ast.Constant("iterate_names")], values=[ast.Constant(ast.unparse(node.target))])
        out.append(ast.Expr(_low.ag_call("for_stmt", [
            node.iter, _low.name_(extra_name) if extra is not None else ast.Constant(None), _low.name_(body_name),
            _low.name_(getter), _low.name_(setter), self._symbols(state), options])))
        return out


def _located(stmts, origin):
    """`stmts` with the position of `origin` (the user's if/while/for) on the nodes written for it (state
    functions, the operator call), so the generated form's lines map back to that statement; the user's
    own statements inside keep theirs."""
    for stmt in stmts:
        _low.locate(stmt, origin)
    return stmts


class _Composite:
    """An attribute or subscript a statement assigns (`obj.a`, `d['k']`): TensorFlow's composite symbol."""

    def __init__(self, target):
        self.text = ast.unparse(target)
        self.support = frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))

    def __str__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, _Composite) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def load(self):
        return _low.ag_call("ldu", [_low.lambda_(_low.expr(self.text)), ast.Constant(self.text)])

    def store(self):
        node = _low.expr(self.text)
        node.ctx = ast.Store()
        return node


def _composites(stmts):
    """The attributes and subscripts `stmts` assign (outside nested functions), in first-assignment order."""
    found = []
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            symbol = _Composite(node)
            if symbol not in found:
                found.append(symbol)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return found


def _union(a, b):
    return list(a) + [n for n in b if n not in a]


class _ConditionalExpressions(_low.LocatingTransformer):
    def visit_IfExp(self, node):
        return _low.ag_call("if_exp", [node.test, _low.lambda_(node.body), _low.lambda_(node.orelse),
                                       ast.Constant(ast.unparse(node.test).strip())])


class _LogicalExpressions(_low.LocatingTransformer):
    _EQUALITY = {ast.Eq: "eq", ast.NotEq: "not_eq"}

    def __init__(self, features):
        self.equality = "EQUALITY_OPERATORS" in features or "ALL" in features

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        values = list(node.values)
        right = values.pop()
        while values:
            right = _low.ag_call(op, [_low.lambda_(values.pop()), _low.lambda_(right)])
        return right

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _low.ag_call("not_", [node.operand])
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        tree, left = None, node.left
        for op, right in zip(node.ops, node.comparators):
            overload = self._EQUALITY.get(type(op)) if self.equality else None
            comparison = _low.ag_call(overload, [left, right]) if overload else \
                ast.Compare(left=left, ops=[op], comparators=[right])
            tree = comparison if tree is None else _low.ag_call(
                "and_", [_low.lambda_(tree), _low.lambda_(comparison)])
            left = right
        return tree


class _Variables(_low.LocatingTransformer):
    """Reads of the user's names become ag__.ld(name); `x += y` first reloads x (its operand is kept)."""

    def visit_Name(self, node):
        if getattr(node, "ag_original", False) and isinstance(node.ctx, ast.Load):
            return _low.ag_call("ld", [node])
        return node

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            return [_low.assign(node.target.id, _low.ag_call("ld", [_low.name_(node.target.id)])), node]
        return self.generic_visit(node)

    def visit_Delete(self, node):
        self.generic_visit(node)
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            return node
        out = [_low.assign(t.id, _low.ag_call("Undefined", [ast.Constant(t.id)])) for t in names]
        rest = [t for t in node.targets if not isinstance(t, ast.Name)]
        return out + ([ast.Delete(targets=rest)] if rest else [])
