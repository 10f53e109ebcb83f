"""Converts expressions: `and`/`or`/`not`, conditional expressions, and calls.

    a and b        →  ag__.and_(lambda: a, lambda: b)
    not x          →  ag__.not_(x)
    a if c else b  →  ag__.if_exp(c, lambda: a, lambda: b, 'c')
    f(x, k=1)      →  ag__.converted_call(f, (x,), {'k': 1})

The operators keep Python's short-circuit semantics for Python values and build graph ops for tensors.
"""
import ast

__all__ = ["ExpressionConverter"]

# `iter` goes through converted_call: iter(dataset) inside a traced function is staged there (api.py).
_NOT_CONVERTED_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "isinstance", "range",
                        "print", "type", "id", "hasattr", "getattr", "setattr", "next"}


def _ag(attr):
    return ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()), attr=attr, ctx=ast.Load())


def _thunk(expr):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=expr)


class ExpressionConverter(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        return node  # nested functions are converted when called

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = ast.Call(func=_ag(op), args=[_thunk(value), _thunk(result)], keywords=[])
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.Call(func=_ag("not_"), args=[node.operand], keywords=[])
        return node

    def visit_IfExp(self, node):
        test_source = ast.unparse(node.test)  # as written: it names the value in error messages
        self.generic_visit(node)
        return ast.Call(func=_ag("if_exp"), args=[node.test, _thunk(node.body), _thunk(node.orelse),
                                                  ast.Constant(test_source)], keywords=[])

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in _NOT_CONVERTED_CALLS:
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ag__":
            return node
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        if node.keywords:
            keys, values = [], []
            for kw in node.keywords:
                keys.append(ast.Constant(kw.arg) if kw.arg is not None else None)
                values.append(kw.value)
            kwargs = ast.Dict(keys=keys, values=values)
        else:
            kwargs = ast.Constant(None)
        return ast.Call(func=_ag("converted_call"), args=[func, args, kwargs], keywords=[])
