"""Static name analysis for AutoGraph: which names a block of statements assigns.

Nested function and class bodies are scopes of their own: their inner assignments do not count, only
the name they bind. Names declared `global` in the function are never treated as local state.

    >>> assigned_names(ast.parse("x = 1\\nfor i in r: y += i").body)
    ['x', 'i', 'y']
"""
import ast

__all__ = ["assigned_names", "global_names", "contains"]


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
    out = set()
    for node in _walk_scope(fn_node.body):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
    return out


def _walk_scope(stmts):
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


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
