"""Static analysis behind `tf.autograph.to_code`'s control-flow state: which names a statement binds,
which are live into and out of it, and which may be defined before it.

TensorFlow decides a control-flow statement's state variables (the names its get_state/set_state pair
carries) from three facts, computed here on the function's tree after the break/continue/return
lowering and before control flow is converted:

- bound: the simple names the statement's body (and, for `for`, its target) assign;
- live in / live out: names read later before being reassigned (a backward data-flow pass; loops are
  iterated to a fixed point, so a read at the top of the next iteration counts);
- defined in: names some path may have bound before the statement (a forward pass; inside a loop the
  names its body binds reach the top through the back edge).

    facts = analyse_function(fn_node)
    facts.live_in[id(if_node)], facts.live_out[id(if_node)], facts.defined_in[id(if_node)]
"""
import ast

__all__ = ["analyse_function", "bound_names", "loads", "FunctionFacts"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.While)
_COMPOUND = (ast.If, ast.For, ast.While)


def _parameters(args):
    params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    return [a.arg for a in params]


def _nested_reads(node):
    """Names a nested function, lambda or comprehension reads from its enclosing scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        own = set(_parameters(node.args)) | set(bound_names(node.body))
        outer = loads(node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d])
        return (loads(node.body) - own) | outer
    if isinstance(node, ast.Lambda):
        outer = loads(node.args.defaults + [d for d in node.args.kw_defaults if d])
        return (loads([node.body]) - set(_parameters(node.args))) | outer
    if isinstance(node, ast.ClassDef):
        return loads(node.bases + node.decorator_list)
    body = [node.elt] if not isinstance(node, ast.DictComp) else [node.key, node.value]
    body += [g.iter for g in node.generators[1:]] + [c for g in node.generators for c in g.ifs]
    own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    return (loads(body) - own) | loads([node.generators[0].iter])


def loads(nodes):
    """Names read by `nodes` (expressions or statements, not descending into compound statements' own
    bookkeeping: every Name in Load context, and what nested scopes read from outside)."""
    out = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            out |= _nested_reads(node)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return out


class _Bound(ast.NodeVisitor):
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

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_Import(self, node):
        for alias in node.names:
            self._add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self._add(node.name)
        for s in node.body:
            self.visit(s)


def bound_names(stmts):
    """Simple names `stmts` bind (assignments, loop targets, defs, imports), in first-binding order."""
    v = _Bound()
    for s in stmts:
        v.visit(s)
    return v.names


class FunctionFacts:
    """live_in / live_out / defined_in of each if/while/for of one function, keyed by id(node)."""

    def __init__(self):
        self.live_in = {}
        self.live_out = {}
        self.defined_in = {}


def analyse_function(fn_node, outer_defined=()):
    """Liveness and reaching definitions for the if/while/for statements of `fn_node`'s own body
    (nested functions are analysed when the converter reaches them)."""
    facts = FunctionFacts()
    closure_reads = set()
    for node in _own_statements(fn_node.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            closure_reads |= _nested_reads(node)
    _Liveness(facts, closure_reads).block(fn_node.body, set())
    _define_block(facts, fn_node.body, set(outer_defined) | set(_parameters(fn_node.args)))
    return facts


def _own_statements(stmts):
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, (ast.stmt, ast.excepthandler)))


class _Liveness:
    """Backward liveness over structured statements. A local function reads its free names whenever it
    may be called: those reads are live at every statement (a conservative stand-in for TensorFlow's
    reaching-function analysis)."""

    def __init__(self, facts, closure_reads):
        self.facts = facts
        self.closure_reads = closure_reads

    def block(self, stmts, live):
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, out):
        if isinstance(s, ast.If):
            live = loads([s.test]) | self.block(s.body, out) | self.block(s.orelse, out)
        elif isinstance(s, ast.While):
            live = self._loop(s, out, lambda head: loads([s.test]) | self.block(s.body, head) |
                              self.block(s.orelse, out))
        elif isinstance(s, ast.For):
            target = set(bound_names([ast.Assign(targets=[s.target], value=ast.Constant(None))]))
            live = self._loop(s, out, lambda head: loads([s.iter]) | (
                (self.block(s.body, head) | self.block(s.orelse, out)) - target))
        elif isinstance(s, ast.Try):
            after_body = self.block(s.finalbody, out) if s.finalbody else out
            live = self.block(s.body, self.block(s.orelse, after_body) if s.orelse else after_body)
            for handler in s.handlers:
                live |= self.block(handler.body, after_body)
        elif isinstance(s, ast.With):
            targets = set(bound_names([ast.Assign(targets=[i.optional_vars], value=ast.Constant(None))
                                       for i in s.items if i.optional_vars is not None]))
            live = loads([i.context_expr for i in s.items]) | (self.block(s.body, out) - targets)
        elif isinstance(s, (ast.Return, ast.Raise)):
            live = loads([s])
        elif isinstance(s, (ast.Break, ast.Continue)):
            live = set(out)
        else:
            live = self._simple(s, out)
        live |= self.closure_reads
        if isinstance(s, _COMPOUND):
            self.facts.live_out[id(s)] = frozenset(out)
            self.facts.live_in[id(s)] = frozenset(live)
        return live

    def _loop(self, s, out, head_from):
        head = set()   # least fixed point: grows monotonically from nothing live
        while True:
            new = head_from(head) | self.closure_reads
            if new == head:
                return head
            head = new

    @staticmethod
    def _simple(s, out):
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
            return {s.target.id} | loads([s.value]) | (out - {s.target.id})
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            reads = loads(s.decorator_list) if not isinstance(s, ast.ClassDef) else loads(s.bases)
            return reads | (out - {s.name})
        killed = set(bound_names([s]))
        return loads([s]) | (out - killed)


def _define_block(facts, stmts, defined):
    for s in stmts:
        defined = _define_stmt(facts, s, defined)
    return defined


def _define_stmt(facts, s, defined):
    if isinstance(s, _COMPOUND):
        facts.defined_in[id(s)] = frozenset(defined)
    if isinstance(s, _LOOPS):
        inside = set(defined) | set(bound_names([s]))  # the back edge brings the body's bindings to its top
        _define_block(facts, s.body, inside)
        _define_block(facts, s.orelse, inside)
        return inside
    if isinstance(s, ast.If):  # either branch may have run
        return _define_block(facts, s.body, defined) | _define_block(facts, s.orelse, defined)
    if isinstance(s, ast.With):
        targets = bound_names([ast.Assign(targets=[i.optional_vars], value=ast.Constant(None))
                               for i in s.items if i.optional_vars is not None])
        return _define_block(facts, s.body, set(defined) | set(targets))
    if isinstance(s, ast.Try):
        after = _define_block(facts, s.body, defined)
        for handler in s.handlers:
            after |= _define_block(facts, handler.body, after)
        after = _define_block(facts, s.orelse, after)
        return _define_block(facts, s.finalbody, after)
    return set(defined) | set(bound_names([s]))
