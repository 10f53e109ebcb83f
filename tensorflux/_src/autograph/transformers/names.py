"""Static name analysis for AutoGraph: which names a block of statements assigns.

Nested function and class bodies are scopes of their own: their inner assignments do not count, only
the name they bind. Names declared `global` in the function are never treated as local state.

    >>> assigned_names(ast.parse("x = 1\\nfor i in r: y += i").body)
    ['x', 'i', 'y']
"""
import ast

__all__ = ["assigned_names", "assigned_compounds", "global_names", "declared_names", "loop_liveness", "contains"]


class _Assigned(ast.NodeVisitor):
    def __init__(self):
        self.names = []

    def _add(self, name):
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._add(node.id)

    def visit_FunctionDef(self, node):
        self._add(node.name)
        for d in node.decorator_list:
            self.visit(d)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_NamedExpr(self, node):
        self._add(node.target.id)
        self.visit(node.value)

    def visit_Import(self, node):
        for alias in node.names:
            self._add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self._add(node.name)
        for s in node.body:
            self.visit(s)

    def visit_Nonlocal(self, node):
        pass

    def visit_Global(self, node):
        pass


def assigned_names(stmts):
    """Names bound by `stmts`, in first-assignment order."""
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


def global_names(fn_node):
    """Names declared `global` or `nonlocal` directly in a function body (not in nested functions)."""
    globals_, nonlocals = declared_names(fn_node)
    return globals_ | nonlocals


def declared_names(fn_node):
    """(names declared `global`, names declared `nonlocal`) directly in a function body."""
    globals_, nonlocals = set(), set()
    for node in _walk_scope(fn_node.body):
        if isinstance(node, ast.Global):
            globals_.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            nonlocals.update(node.names)
    return globals_, nonlocals


def _compound_path(node):
    """(root name, ((kind, key), ...)) of `a.b[0]['k']`-like targets, None for anything else (a subscript
    by a variable, a call in the chain): only such fixed paths name the same storage on every iteration."""
    path = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            path.append((".", node.attr))
        elif isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (int, str)) \
                and not isinstance(node.slice.value, bool):
            path.append(("[]", node.slice.value))
        else:
            return None
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, tuple(reversed(path))


def assigned_compounds(stmts):
    """Attributes and constant subscripts (`obj.b`, `lst[0]`, `d['k']`) that `stmts` assign, as
    (source text, root name, path), in first-assignment order. Those whose root `stmts` rebinds are left
    out: they belong to an object made inside the block."""
    rebound = set(assigned_names(stmts))
    out, seen = [], set()
    for node in _walk_scope(stmts, ordered=True):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            found = _compound_path(node)
            if found is None or found[0] in rebound:
                continue
            text = ast.unparse(node)
            if text not in seen:
                seen.add(text)
                out.append((text, found[0], found[1]))
    return out


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _parameters(args):
    params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    return {a.arg for a in params}


def _scope_reads(node):
    """Names a nested scope (function, lambda, comprehension) reads from outside: its reads, less its own
    parameters, local bindings and comprehension targets."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body = node.body
        own = (_parameters(node.args) | set(assigned_names(body))) - global_names(node)
        outer = _loads(node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d])
    elif isinstance(node, ast.Lambda):
        body, own = [node.body], _parameters(node.args)
        outer = _loads(node.args.defaults + [d for d in node.args.kw_defaults if d])
    else:
        body = [node.elt] if not isinstance(node, ast.DictComp) else [node.key, node.value]
        body += [g.iter for g in node.generators[1:]] + [c for g in node.generators for c in g.ifs]
        own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        outer = _loads([node.generators[0].iter])
    return (_loads(body) - own) | outer


def _loads(nodes):
    """Names read by `nodes` (and by the statements lowering attached to loops); nested scopes count with
    what they read from outside."""
    out = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            out |= _scope_reads(node)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        stack.extend(ast.iter_child_nodes(node))
        stack.extend(getattr(node, "ag_after", ()))
    return out


def _blocks(stmt):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


def loop_liveness(fn_node):
    """{id(statement): (names read after it, names read inside it)} for the loops and `if`s of a function.

    A conservative static approximation of TensorFlow's liveness analysis: "after" is every later
    statement of each enclosing block, the whole of each enclosing loop (its next iteration), and every
    nested `def` (a local function may be called anywhere). A lambda counts where it is written, as
    TensorFlow assumes lambdas are called in the statement that holds them."""
    closure_reads = set()
    for node in _walk_scope(fn_node.body, into_functions=True):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            closure_reads |= _scope_reads(node)
    result = {}

    def visit(stmts, after):
        for i, s in enumerate(stmts):
            later = _loads(stmts[i + 1:]) | after
            if isinstance(s, (ast.For, ast.While)):
                inside = _loads(s.body + ([s.test] if isinstance(s, ast.While) else []))
                result[id(s)] = (later | _loads(s.orelse) | _loads(getattr(s, "ag_after", ())) | closure_reads,
                                 inside)
                # the next iteration, and the flags that lowering made the loop's own test read (break_1)
                for block in _blocks(s):
                    visit(block, later | _loads([s]) | set(getattr(s, "ag_extra_tests", ())))
            elif isinstance(s, ast.If):
                result[id(s)] = (later | closure_reads, _loads([s]))
                for block in _blocks(s):
                    visit(block, later)
            elif not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                extra = set()
                if isinstance(s, ast.Try):
                    extra = _loads([h for h in s.handlers] + s.orelse + s.finalbody)
                for block in _blocks(s):
                    visit(block, later | extra)

    visit(fn_node.body, set())
    return result


def _walk_scope(stmts, ordered=False, into_functions=False):
    stack = list(reversed(stmts)) if ordered else list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if not into_functions and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                    ast.Lambda)) and node not in stmts:
            continue
        children = [c for c in ast.iter_child_nodes(node)
                    if into_functions or not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                            ast.Lambda))]
        stack.extend(reversed(children) if ordered else children)


def contains(stmts, node_types, stop_at_loops=False):
    """True when `stmts` (not counting nested functions) contain a node of `node_types`."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, node_types):
            return True
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if stop_at_loops and isinstance(child, (ast.For, ast.While)):
                continue
            stack.append(child)
    return False
