"""Converts `if`, `while` and `for` statements into calls of AutoGraph's runtime operators.

Each statement becomes small local functions (body, else-body or loop test, plus get_state/set_state
over the names the statement assigns) and one call such as

    ag__.if_stmt(x > 0, if_body_1, else_body_1, get_state_1, set_state_1, ('y',))

The operator decides at run time: a tensor condition inside a graph becomes `cond`/`while_loop`;
anything else runs as the original Python. Names the statement assigns that are not yet bound get an
`Undefined` placeholder first, so `nonlocal` always finds a binding.
"""
import ast

from .names import assigned_names

__all__ = ["ControlFlowConverter"]


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


def _call(func, args):
    return ast.Call(func=func, args=args, keywords=[])


def _def(name, args, body):
    return ast.FunctionDef(name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args],
                                                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                         defaults=[]),
                           body=body or [ast.Pass()], decorator_list=[], returns=None, type_params=[])


def _thunk(expr):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                         kwarg=None, defaults=[]), body=expr)


def _tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def _position(node):
    """(line, column) of a statement, or of the first located node inside a generated one."""
    for n in ast.walk(node):
        if hasattr(n, "lineno"):
            return n.lineno, getattr(n, "col_offset", 0)
    return None, 0


class ControlFlowConverter(ast.NodeTransformer):
    """Bottom-up conversion of if/while/for inside one function (nested functions are left alone)."""

    def __init__(self, excluded_names):
        self.excluded = set(excluded_names)   # global/nonlocal names of the function: never state
        self.counter = 0

    def _fresh(self):
        self.counter += 1
        return self.counter

    def visit(self, node):
        result = super().visit(node)
        if isinstance(result, list):  # generated statements point at the statement they replace
            line, col = _position(node)
            for stmt in result:
                if not hasattr(stmt, "lineno") and line is not None:
                    stmt.lineno = stmt.end_lineno = line
                    stmt.col_offset = stmt.end_col_offset = col
                    ast.fix_missing_locations(stmt)
        return result

    def visit_FunctionDef(self, node):
        return node  # nested functions are converted when called (converted_call)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def _state(self, stmts, extra=()):
        names = [n for n in assigned_names(stmts) if n not in self.excluded and not n.startswith("ag__")]
        for n in extra:
            if n not in names:
                names.append(n)
        return names

    def _scaffold(self, k, names):
        """Undefined-initialisation of names, then get_state/set_state functions."""
        out = [ast.Assign(targets=[_name(n, True)],
                          value=_call(_ag("ld"), [_call(_name("locals"), []), ast.Constant(n)])) for n in names]
        out.append(_def(f"get_state_{k}", [], [ast.Return(value=_tuple(names))]))
        set_body = ([ast.Nonlocal(names=list(names)),
                     ast.Assign(targets=[_tuple(names, True)], value=_name("vars_"))] if names else [ast.Pass()])
        out.append(_def(f"set_state_{k}", ["vars_"], set_body))
        return out

    def _with_nonlocal(self, names, body):
        return ([ast.Nonlocal(names=list(names))] if names else []) + (body or [ast.Pass()])

    def visit_If(self, node):
        self.generic_visit(node)
        k = self._fresh()
        names = self._state(node.body + node.orelse)
        out = self._scaffold(k, names)
        out.append(_def(f"if_body_{k}", [], self._with_nonlocal(names, node.body)))
        out.append(_def(f"else_body_{k}", [], self._with_nonlocal(names, node.orelse)))
        out.append(ast.Expr(_call(_ag("if_stmt"), [node.test, _name(f"if_body_{k}"), _name(f"else_body_{k}"),
                                                   _name(f"get_state_{k}"), _name(f"set_state_{k}"),
                                                   ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                             ctx=ast.Load())])))
        return out

    def _extra_test(self, node, k):
        flags = getattr(node, "ag_extra_tests", [])
        if not flags:
            return [], ast.Constant(None)
        # Built from operator calls directly: expressions were already converted before this pass.
        test = _call(_ag("not_"), [_name(flags[0])])
        for f in flags[1:]:
            test = _call(_ag("and_"), [_thunk(test), _thunk(_call(_ag("not_"), [_name(f)]))])
        return [_def(f"extra_test_{k}", [], [ast.Return(value=test)])], _name(f"extra_test_{k}")

    def visit_While(self, node):
        self.generic_visit(node)
        k = self._fresh()
        flags = getattr(node, "ag_extra_tests", [])
        names = self._state(node.body, extra=flags)
        out = list(getattr(node, "ag_prologue", []))
        out += self._scaffold(k, names)
        extra_defs, extra = self._extra_test(node, k)
        out += extra_defs
        out.append(_def(f"loop_test_{k}", [], [ast.Return(value=node.test)]))
        out.append(_def(f"loop_body_{k}", [], self._with_nonlocal(names, node.body)))
        out.append(ast.Expr(_call(_ag("while_stmt"), [_name(f"loop_test_{k}"), _name(f"loop_body_{k}"),
                                                      _name(f"get_state_{k}"), _name(f"set_state_{k}"),
                                                      ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                                ctx=ast.Load()), extra])))
        out += node.orelse + list(getattr(node, "ag_after", []))
        return out

    def visit_For(self, node):
        self.generic_visit(node)
        k = self._fresh()
        flags = getattr(node, "ag_extra_tests", [])
        target_assign = ast.Assign(targets=[node.target], value=_name(f"itr_{k}"))
        names = self._state([target_assign] + node.body, extra=flags)
        out = list(getattr(node, "ag_prologue", []))
        out += self._scaffold(k, names)
        extra_defs, extra = self._extra_test(node, k)
        out += extra_defs
        out.append(_def(f"loop_body_{k}", [f"itr_{k}"], self._with_nonlocal(names, [target_assign] + node.body)))
        out.append(ast.Expr(_call(_ag("for_stmt"), [node.iter, extra, _name(f"loop_body_{k}"),
                                                    _name(f"get_state_{k}"), _name(f"set_state_{k}"),
                                                    ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                              ctx=ast.Load())])))
        out += node.orelse + list(getattr(node, "ag_after", []))
        return out
