"""The optional LISTS conversion (`tf.autograph.experimental.Feature.LISTS`): list mutation made
functional, so it can be staged.

    items.append(x)   →   items = ag__.list_append(items, x)

`list_append` appends to a Python list in place (and returns it) and writes a TensorArray at its end
(returning the new TensorArray), so the statement means the same for both.
"""
import ast

__all__ = ["ListAppendConverter"]


class ListAppendConverter(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        return node   # nested functions are converted when called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords \
                and not isinstance(call.args[0], ast.Starred):
            name = call.func.value.id
            replacement = ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())],
                value=ast.Call(func=ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()), attr="list_append",
                                                  ctx=ast.Load()),
                               args=[ast.Name(id=name, ctx=ast.Load()), call.args[0]], keywords=[]))
            return ast.copy_location(replacement, node)
        return node
