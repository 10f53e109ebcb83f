"""The lowering passes of `tf.autograph.to_code`'s generated form: FunctionScope wrapping, break,
continue and return lowering, the optional lists feature, and call rewriting.

Each pass mirrors one of TensorFlow's AutoGraph rewrites (see `generated_code`), in its order of name
allocation, so the names they introduce (`fscope`, `break_`, `continue_`, `do_return`, `retval_`) get
the same numeric suffixes as TensorFlow's.
"""
import ast

__all__ = ["options_source", "Namer", "lower", "expr", "name_", "assign", "not_", "lambda_", "def_", "ag_call", "flat",
           "locate", "LocatingTransformer", "Calls"]

def options_source(features, user_requested=True):
    """The `ag__.ConversionOptions(...)` expression TensorFlow writes into each FunctionScope."""
    if not user_requested and not features:
        return "ag__.STD"
    if not features:
        listed = "()"
    elif len(features) == 1:
        listed = f"ag__.Feature.{features[0]}"
    else:
        listed = "(" + ", ".join(f"ag__.Feature.{f}" for f in features) + ")"
    return (f"ag__.ConversionOptions(recursive=True, user_requested={user_requested}, optional_features={listed}, "
            f"internal_convert_user_code=True)")


class Namer:
    """Fresh names: the base name, else base_1, base_2, ... avoiding the user's names and earlier ones."""

    def __init__(self, reserved):
        self.reserved = set(reserved)
        self.generated = set()

    def new(self, base):
        name, n = base, 0
        while name in self.reserved or name in self.generated:
            n += 1
            name = f"{base}_{n}"
        self.generated.add(name)
        return name


def expr(text):
    return ast.parse(text, mode="eval").body


def name_(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def assign(name, value):
    return ast.Assign(targets=[name_(name, True)], value=value)


def not_(expr):
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def lambda_(body):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=body)


def def_(name, params, body):
    return ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                                                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                         defaults=[]),
                           body=body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])


def ag_call(attr, args):
    return ast.Call(func=expr(f"ag__.{attr}"), args=args, keywords=[])


def locate(node, origin):
    """Gives the nodes of `node` that have no position yet `origin`'s: the code written for a user's
    statement maps back to that statement (error messages of the generated form show the user's lines).
    Nodes that have a position (the user's own, inside) are left as they are, with their children."""
    stack = [node]
    while stack:
        n = stack.pop()
        if "lineno" in n._attributes:
            if hasattr(n, "lineno"):
                continue
            ast.copy_location(n, origin)
        stack.extend(ast.iter_child_nodes(n))


class LocatingTransformer(ast.NodeTransformer):
    """A NodeTransformer whose replacement nodes take the position of the node they replace."""

    def visit(self, node):
        result = super().visit(node)
        if hasattr(node, "lineno") and result is not node:
            for new in result if isinstance(result, list) else (result,):
                if isinstance(new, ast.AST):
                    locate(new, node)
        return result


def flat(items):
    out = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
    return out


# -- functions: FunctionScope around each body -------------------------------------------------------
class _Functions(LocatingTransformer):
    def __init__(self, namer, features):
        self.namer = namer
        self.features = features
        self.level = 1

    def visit_FunctionDef(self, node):
        self.level += 1
        node.ag_scope = self.namer.new("fscope")
        self.generic_visit(node)
        top = self.level == 2
        if top:
            node.decorator_list = []
        else:
            node.decorator_list.append(expr("ag__.autograph_artifact"))
        body = node.body
        docstring = []
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            docstring, body = [body[0]], body[1:]
        scope = ast.Call(func=expr("ag__.FunctionScope"), args=[
            ast.Constant(node.name), ast.Constant(node.ag_scope),
            expr(options_source(self.features, user_requested=top))], keywords=[])
        node.body = docstring + [ast.With(items=[ast.withitem(context_expr=scope,
                                                              optional_vars=name_(node.ag_scope, True))],
                                          body=body or [ast.Pass()])]
        self.level -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.generic_visit(node)
        if self.level >= 2:
            return ast.Call(func=expr("ag__.autograph_artifact"), args=[node], keywords=[])
        return node


# -- break: a flag, `continue`, and an extra loop test -------------------------------------------------
class _Breaks(LocatingTransformer):
    def __init__(self, namer):
        self.namer = namer
        self.loops = []   # [flag name, used]

    def _block(self, stmts):
        return flat([self.visit(s) for s in stmts])

    def visit_Break(self, node):
        self.loops[-1][1] = True
        return [assign(self.loops[-1][0], ast.Constant(True)), ast.Continue()]

    def _body(self, node, flag):
        self.loops.append([flag, False])
        body = self._block(node.body)
        return body, self.loops.pop()[1]

    def visit_While(self, node):
        flag = self.namer.new("break_")
        node.test = self.visit(node.test)
        node.body, used = self._body(node, flag)
        orelse = self._block(node.orelse)
        node.orelse = []
        if not used:
            return [node] + orelse   # the else clause runs after a loop that cannot break
        node.test = ast.BoolOp(op=ast.And(), values=[not_(name_(flag)), node.test])
        return [assign(flag, ast.Constant(False)), node] + self._guard(flag, orelse)

    def visit_For(self, node):
        flag = self.namer.new("break_")
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.body, used = self._body(node, flag)
        orelse = self._block(node.orelse)
        node.orelse = []
        if not used:
            return [node] + orelse
        # The extra test is not in the tree, so a read of the flag at the top of the body keeps it live.
        node.body = [ast.Expr(ast.Tuple(elts=[name_(flag)], ctx=ast.Load()))] + node.body
        node.ag_extra_test = not_(name_(flag))
        return [assign(flag, ast.Constant(False)), node] + self._guard(flag, orelse)

    @staticmethod
    def _guard(flag, block):
        return [ast.If(test=not_(name_(flag)), body=block, orelse=[])] if block else []


def _visit_block(visit, stmts, after_visit):
    """TensorFlow's block walk: `after_visit(stmt)` may return a new list that receives the rest."""
    results = []
    destination = results
    for s in stmts:
        replacement = visit(s)
        new_destination = None
        if replacement:
            replacement, new_destination = after_visit(replacement)
        if replacement:
            destination.extend(replacement if isinstance(replacement, list) else [replacement])
        if new_destination is not None:
            destination = new_destination
    return results


class _Block:
    def __init__(self, is_loop=False, is_function=False):
        self.is_loop = is_loop
        self.is_function = is_function
        self.used = False
        self.guard_current = False
        self.guard_next = False


# -- continue: a flag and guards on the rest of the body ----------------------------------------------
class _Continues(LocatingTransformer):
    def __init__(self, namer):
        self.namer = namer
        self.loops = []    # [flag, used]
        self.blocks = []

    def visit_Continue(self, node):
        self.loops[-1][1] = True
        for block in reversed(self.blocks):
            block.guard_next = True
            if block.is_loop:
                break
        return [assign(self.loops[-1][0], ast.Constant(True))]

    def _after(self, node):
        if self.loops and self.loops[-1][1]:
            block = self.blocks[-1]
            wrap = block.guard_current
            block.guard_current, block.guard_next = block.guard_next, False
            if wrap:
                guard = ast.If(test=not_(name_(self.loops[-1][0])),
                               body=node if isinstance(node, list) else [node], orelse=[])
                return guard, guard.body
        return node, None

    def _loop_body(self, stmts):
        flag = self.namer.new("continue_")
        self.loops.append([flag, False])
        self.blocks.append(_Block(is_loop=True))
        stmts = _visit_block(self.visit, stmts, self._after)
        if self.loops[-1][1]:
            stmts = [assign(flag, ast.Constant(False))] + stmts
        self.blocks.pop()
        self.loops.pop()
        return stmts

    def _plain_body(self, stmts):
        self.blocks.append(_Block())
        stmts = _visit_block(self.visit, stmts, self._after)
        self.blocks.pop()
        return stmts

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self._loop_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_For(self, node):
        node.target = self.visit(node.target)
        node.iter = self.visit(node.iter)
        node.body = self._loop_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_If(self, node):
        node.body = self._plain_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        return node

    def visit_With(self, node):
        node.body = self._plain_body(node.body)
        return node

    def visit_Try(self, node):
        node.body = self._plain_body(node.body)
        node.orelse = self._plain_body(node.orelse)
        node.finalbody = self._plain_body(node.finalbody)
        for handler in node.handlers:
            handler.body = self._plain_body(handler.body)
        return node

    def visit_FunctionDef(self, node):
        loops, blocks = self.loops, self.blocks
        self.loops, self.blocks = [], []
        node.body = [self.visit(s) for s in node.body]
        node.body = flat(node.body)
        self.loops, self.blocks = loops, blocks
        return node


# -- return: `if c: return` absorbs what follows, then do_return/retval_ ---------------------------
def _definitely_returns(stmts):
    """Rewrites `stmts` in place so code after an `if` whose branch always returns moves into the other
    branch; True when the block always returns."""
    out, destination, returns = [], None, False
    for s in stmts:
        target = out if destination is None else destination
        target.append(s)
        if isinstance(s, ast.Return):
            returns = True
        elif isinstance(s, ast.If):
            body_returns = _definitely_returns_in(s, "body")
            orelse_returns = _definitely_returns_in(s, "orelse")
            if body_returns and orelse_returns:
                returns = True
            if body_returns:
                destination = s.orelse
            elif orelse_returns:
                destination = s.body
        elif isinstance(s, (ast.While, ast.For)):
            _definitely_returns_in(s, "body")
            _definitely_returns_in(s, "orelse")
        elif isinstance(s, ast.With):
            if _definitely_returns_in(s, "body"):
                returns = True
        elif isinstance(s, ast.Try):
            for field in ("body", "orelse", "finalbody"):
                _definitely_returns_in(s, field)
            for handler in s.handlers:
                _definitely_returns_in(handler, "body")
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _definitely_returns_in(s, "body")
    stmts[:] = out
    return returns


def _definitely_returns_in(node, field):
    return _definitely_returns(getattr(node, field))


class _Returns(LocatingTransformer):
    def __init__(self, namer):
        self.namer = namer
        self.functions = []   # (do_return, retval_)
        self.blocks = []

    def visit_Return(self, node):
        for block in reversed(self.blocks):
            block.used = True
            block.guard_next = True
            if block.is_function:
                break
        do_return, retval = self.functions[-1]
        value = node.value if node.value is not None else ast.Constant(None)
        return ast.Try(body=[assign(do_return, ast.Constant(True)), assign(retval, value)],
                       handlers=[ast.ExceptHandler(type=None, name=None, body=[
                           assign(do_return, ast.Constant(False)), ast.Raise(exc=None, cause=None)])],
                       orelse=[], finalbody=[])

    def _after(self, node):
        block = self.blocks[-1]
        if not block.used:
            return node, None
        result = (node, None)
        if block.guard_current:
            guard = ast.If(test=not_(name_(self.functions[-1][0])),
                           body=node if isinstance(node, list) else [node], orelse=[])
            result = (guard, guard.body)
        block.guard_current, block.guard_next = block.guard_next, False
        return result

    def _block(self, stmts, **kind):
        self.blocks.append(_Block(**kind))
        stmts = _visit_block(self.visit, stmts, self._after)
        block = self.blocks.pop()
        return stmts, block

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body, _ = self._block(node.body)
        if self.blocks[-1].used:
            node.test = ast.BoolOp(op=ast.And(), values=[not_(name_(self.functions[-1][0])), node.test])
        node.orelse, _ = self._block(node.orelse)
        return node

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        node.body, _ = self._block(node.body)
        if self.blocks[-1].used:
            flag = not_(name_(self.functions[-1][0]))
            extra = getattr(node, "ag_extra_test", None)
            node.ag_extra_test = flag if extra is None else ast.BoolOp(op=ast.And(), values=[flag, extra])
        node.orelse, _ = self._block(node.orelse)
        return node

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body, _ = self._block(node.body)
        node.orelse, _ = self._block(node.orelse)
        return node

    def visit_With(self, node):
        node.body, _ = self._block(node.body)
        return node

    def visit_Try(self, node):
        node.body, _ = self._block(node.body)
        node.orelse, _ = self._block(node.orelse)
        node.finalbody, _ = self._block(node.finalbody)
        for handler in node.handlers:
            handler.body, _ = self._block(handler.body)
        return node

    def visit_FunctionDef(self, node):
        do_return, retval = self.namer.new("do_return"), self.namer.new("retval_")
        self.functions.append((do_return, retval))
        outer_blocks, self.blocks = self.blocks, []
        node.body, block = self._block(node.body, is_function=True)
        self.blocks = outer_blocks
        self.functions.pop()
        if block.used:
            wrapper = node.body[-1]   # the FunctionScope `with`
            wrapper.body = ([assign(do_return, ast.Constant(False)),
                             assign(retval, expr("ag__.UndefinedReturnValue()"))] + wrapper.body +
                            [ast.Return(value=expr(f"{node.ag_scope}.ret({retval}, {do_return})"))])
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node


# -- lists (Feature.LISTS): `l.append(x)` statements become functional ---------------------------------
class _Lists(LocatingTransformer):
    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords:
            target = call.func.value
            return ast.Assign(targets=[name_(target.id, True)],
                              value=ag_call("list_append", [target, call.args[0]]))
        return node


# -- calls: ag__.converted_call(f, args, kwargs, fscope) ---------------------------------------------
class Calls(LocatingTransformer):
    """Calls → `ag__.converted_call(f, args, kwargs, <scope>)`; the scope is the enclosing def's
    (`scopes`: a lambda's conversion starts it with its own)."""

    def __init__(self, features):
        self.features = features
        self.scopes = []

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        self.scopes.append(node.ag_scope)
        node.body = [self.visit(s) for s in node.body]
        self.scopes.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node):
        full_name = _dotted(node.func)
        self.generic_visit(node)
        scope = self.scopes[-1]
        if full_name.startswith(("ag__.", scope + ".")):
            return node
        if full_name in ("pdb.set_trace", "ipdb.set_trace", "breakpoint"):
            return node
        if full_name == "print" and "BUILTIN_FUNCTIONS" not in self.features and "ALL" not in self.features:
            return node
        parts, pending = [], []
        for a in node.args:
            if isinstance(a, ast.Starred):
                if pending:
                    parts.append(ast.Tuple(elts=pending, ctx=ast.Load()))
                    pending = []
                parts.append(ast.Call(func=name_("tuple"), args=[a.value], keywords=[]))
            else:
                pending.append(a)
        if pending:
            parts.append(ast.Tuple(elts=pending, ctx=ast.Load()))
        args = parts[0] if parts else ast.Tuple(elts=[], ctx=ast.Load())
        for p in parts[1:]:
            args = ast.BinOp(left=args, op=ast.Add(), right=p)
        kwargs = ast.Call(func=name_("dict"), args=[], keywords=node.keywords) if node.keywords \
            else ast.Constant(None)
        return ag_call("converted_call", [node.func, args, kwargs, name_(scope)])


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def lower(fn_node, namer, features):
    """Runs the lowering passes on the parsed function `fn_node` (in place), in TensorFlow's order."""
    fn_node = _Functions(namer, features).visit(fn_node)
    fn_node = _Breaks(namer).visit(fn_node)
    fn_node = _Continues(namer).visit(fn_node)
    _definitely_returns_in(fn_node, "body")
    fn_node = _Returns(namer).visit(fn_node)
    if "LISTS" in features or "ALL" in features:
        fn_node = _Lists().visit(fn_node)
    return Calls(features).visit(fn_node)
