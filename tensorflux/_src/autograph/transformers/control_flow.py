"""Converts `if`, `while` and `for` statements into calls of AutoGraph's runtime operators.

Each statement becomes small local functions (body, else-body or loop test, plus get_state/set_state
over the names the statement assigns) and one call such as

    ag__.if_stmt(x > 0, if_body_1, else_body_1, get_state_1, set_state_1, ('y',))

The operator decides at run time: a tensor condition inside a graph becomes `cond`/`while_loop`;
anything else runs as the original Python. Names the statement assigns that are not yet bound get an
`Undefined` placeholder first, so `nonlocal` always finds a binding.
"""
import ast

from .names import assigned_compounds, assigned_names

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


def _path_constant(path):
    return ast.Tuple(elts=[ast.Tuple(elts=[ast.Constant(kind), ast.Constant(key)], ctx=ast.Load())
                           for kind, key in path], ctx=ast.Load())


def _is_generated_load(value):
    """`ag__.ld(...)`: the converter's own binding of a name that may be undefined."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        isinstance(value.func.value, ast.Name) and value.func.value.id == "ag__"


def _position(node):
    """(line, column) of a statement, or of the first located node inside a generated one."""
    for n in ast.walk(node):
        if hasattr(n, "lineno"):
            return n.lineno, getattr(n, "col_offset", 0)
    return None, 0


class ControlFlowConverter(ast.NodeTransformer):
    """Bottom-up conversion of if/while/for inside one function (nested functions are left alone).

    State of a statement: the local names it assigns, the `global`/`nonlocal` names it assigns, and the
    attributes and constant subscripts it assigns (`obj.b`, `lst[0]`: TensorFlow's compound symbols).
    Loops also pass which names are read after them and inside them (see `loop_liveness`)."""

    def __init__(self, global_names=(), nonlocal_names=(), liveness=None):
        self.globals = set(global_names)
        self.nonlocals = set(nonlocal_names)
        self.liveness = liveness or {}
        self.counter = 0
        self.generated = set()   # names of the functions this converter defines: never state

    def _fresh(self):
        self.counter += 1
        return self.counter

    def visit(self, node):
        result = super().visit(node)
        if isinstance(result, list):  # generated statements point at the statement they replace
            self.generated.update(s.name for s in result if isinstance(s, ast.FunctionDef))
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
        names = [n for n in assigned_names(stmts) if not n.startswith("ag__") and n not in self.generated]
        for n in extra:
            if n not in names:
                names.append(n)
        return names, assigned_compounds(stmts)

    def _declarations(self, names):
        globals_ = [n for n in names if n in self.globals]
        others = [n for n in names if n not in self.globals]
        return (([ast.Global(names=globals_)] if globals_ else []) +
                ([ast.Nonlocal(names=others)] if others else []))

    def _scaffold(self, k, names, compounds):
        """Undefined-initialisation of local names, then get_state/set_state functions."""
        out = [ast.Assign(targets=[_name(n, True)],
                          value=_call(_ag("ld"), [_call(_name("locals"), []), ast.Constant(n)]))
               for n in names if n not in self.globals and n not in self.nonlocals]
        loads = [_name(n) for n in names] + [
            _call(_ag("ld_compound"), [_thunk(_name(root)), _path_constant(path), ast.Constant(text)])
            for text, root, path in compounds]
        out.append(_def(f"get_state_{k}", [], [ast.Return(value=ast.Tuple(elts=loads, ctx=ast.Load()))]))
        set_body = self._declarations(names)
        if names:
            set_body.append(ast.Assign(targets=[_tuple(names, True)],
                                       value=ast.Subscript(value=_name("vars_"),
                                                           slice=ast.Slice(upper=ast.Constant(len(names))),
                                                           ctx=ast.Load())))
        for j, (text, root, path) in enumerate(compounds):
            set_body.append(ast.Expr(_call(_ag("set_compound"), [
                _thunk(_name(root)), _path_constant(path),
                ast.Subscript(value=_name("vars_"), slice=ast.Constant(len(names) + j), ctx=ast.Load())])))
        out.append(_def(f"set_state_{k}", ["vars_"], set_body))
        return out

    def _with_nonlocal(self, names, body):
        return self._declarations(names) + (body or [ast.Pass()])

    @staticmethod
    def _symbols(names, compounds):
        return ast.Tuple(elts=[ast.Constant(n) for n in names] + [ast.Constant(c[0]) for c in compounds],
                         ctx=ast.Load())

    def _liveness_keywords(self, node):
        found = self.liveness.get(id(node))
        if found is None:
            return []
        live_out, read = found
        read = set(read) | set(getattr(node, "ag_extra_tests", ()))  # flags are read by the loop's own test
        return [ast.keyword(arg=arg, value=ast.Tuple(elts=[ast.Constant(n) for n in sorted(v)], ctx=ast.Load()))
                for arg, v in (("live_out", live_out), ("read", read))]

    def _if_symbols(self, node, names):
        """TensorFlow's symbols of an `if`: the names it assigns that are read after it (its outputs), or
        `global`/`nonlocal`, plus those only read inside it (inputs: a tensor `if` does not output them).
        The others are local to each branch."""
        found = self.liveness.get(id(node))
        if found is None:
            return names, []
        live_out, read = found
        outputs = [n for n in names if n in live_out or n in self.globals or n in self.nonlocals]
        inputs_only = [n for n in names if n not in outputs and n in read]
        return outputs + inputs_only, inputs_only

    def visit_If(self, node):
        self.generic_visit(node)
        k = self._fresh()
        names, compounds = self._state(node.body + node.orelse)
        names, inputs_only = self._if_symbols(node, names)
        out = self._scaffold(k, names, compounds)
        out.append(_def(f"if_body_{k}", [], self._with_nonlocal(names, node.body)))
        out.append(_def(f"else_body_{k}", [], self._with_nonlocal(names, node.orelse)))
        call = _call(_ag("if_stmt"), [node.test, _name(f"if_body_{k}"), _name(f"else_body_{k}"),
                                      _name(f"get_state_{k}"), _name(f"set_state_{k}"),
                                      self._symbols(names, compounds)])
        if inputs_only:
            call.keywords = [ast.keyword(arg="inputs_only", value=ast.Tuple(
                elts=[ast.Constant(n) for n in inputs_only], ctx=ast.Load()))]
        out.append(ast.Expr(call))
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

    def _body_locals(self, node, body, names, flags):
        """The names that stay local to each iteration's body function, as in TensorFlow: not read after
        the loop, and first mentioned in the body by a plain assignment of the user's (the `for` target
        included), so no iteration reads another's value. A closure made in the body keeps that
        iteration's value (`fns.append(lambda: i)` in a Python loop captures 0, 1, 2)."""
        found = self.liveness.get(id(node))
        if found is None:
            return set()
        live_out = found[0]
        tested = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)} if isinstance(node, ast.While) else ()
        candidates = {n for n in names if n not in live_out and n not in flags and n not in tested
                      and n not in self.globals and n not in self.nonlocals}
        local, seen = set(), set()
        for stmt in body:
            if not candidates - seen:
                break
            if isinstance(stmt, ast.Assign) and not _is_generated_load(stmt.value):
                read = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
                for target in stmt.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name) and n.id in candidates and n.id not in seen | read:
                            local.add(n.id)
            seen |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
        return local

    def visit_While(self, node):
        self.generic_visit(node)
        k = self._fresh()
        flags = getattr(node, "ag_extra_tests", [])
        names, compounds = self._state(node.body, extra=flags)
        local = self._body_locals(node, node.body, names, flags)
        names = [n for n in names if n not in local]
        out = list(getattr(node, "ag_prologue", []))
        out += self._scaffold(k, names, compounds)
        extra_defs, extra = self._extra_test(node, k)
        out += extra_defs
        out.append(_def(f"loop_test_{k}", [], [ast.Return(value=node.test)]))
        out.append(_def(f"loop_body_{k}", [], self._with_nonlocal(names, node.body)))
        call = _call(_ag("while_stmt"), [_name(f"loop_test_{k}"), _name(f"loop_body_{k}"),
                                         _name(f"get_state_{k}"), _name(f"set_state_{k}"),
                                         self._symbols(names, compounds), extra])
        call.keywords = self._liveness_keywords(node)
        out.append(ast.Expr(call))
        out += node.orelse + list(getattr(node, "ag_after", []))
        return out

    def visit_For(self, node):
        self.generic_visit(node)
        k = self._fresh()
        flags = getattr(node, "ag_extra_tests", [])
        target_assign = ast.Assign(targets=[node.target], value=_name(f"itr_{k}"))
        names, compounds = self._state([target_assign] + node.body, extra=flags)
        local = self._body_locals(node, [target_assign] + node.body, names, flags)
        names = [n for n in names if n not in local]
        out = list(getattr(node, "ag_prologue", []))
        out += self._scaffold(k, names, compounds)
        extra_defs, extra = self._extra_test(node, k)
        out += extra_defs
        out.append(_def(f"loop_body_{k}", [f"itr_{k}"], self._with_nonlocal(names, [target_assign] + node.body)))
        call = _call(_ag("for_stmt"), [node.iter, extra, _name(f"loop_body_{k}"), _name(f"get_state_{k}"),
                                       _name(f"set_state_{k}"), self._symbols(names, compounds)])
        call.keywords = self._liveness_keywords(node)
        out.append(ast.Expr(call))
        out += node.orelse + list(getattr(node, "ag_after", []))
        return out
