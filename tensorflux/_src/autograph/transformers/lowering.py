"""Lowers `break`, `continue` and early `return` to boolean flags, so loops and branches become
functions that AutoGraph can stage as `while_loop`/`cond`.

    while c:                      break_1 = False
        if x: break        →      while (not break_1) and c:     # via the loop's extra test
        y += 1                        if x: break_1 = True
                                      if not break_1: y += 1

Statements after one that may set a flag are guarded by `if not flag:` (which AutoGraph converts in
turn, so a tensor-valued flag becomes a `cond`). Returns inside control flow become `do_return = True;
retval_ = value`, and the function ends with `return ag__.ret(retval_, do_return)`.
"""
import ast

from .names import contains

__all__ = ["lower_function", "FlagNames"]


class FlagNames:
    """Fresh flag names for one function."""

    def __init__(self):
        self.n = 0

    def make(self, base):
        self.n += 1
        return f"{base}_{self.n}"


def _assign(name, value):
    return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)


def _guard(flag, stmts):
    return ast.If(test=ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=flag, ctx=ast.Load())), body=stmts, orelse=[])


def _ends_with_return(block):
    return bool(block) and (isinstance(block[-1], ast.Return) or
                            (isinstance(block[-1], ast.If) and _ends_with_return(block[-1].body)
                             and _ends_with_return(block[-1].orelse)))


def _lower_block(stmts, kind, flag, retval=None):
    """Replaces `kind` statements (ast.Break/ast.Continue/ast.Return) by flag assignments, guarding the rest."""
    out = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1:]
        if kind is ast.Return and isinstance(s, ast.If) and rest:
            # `if c: return a` followed by more code: the rest is the else branch, so both branches of a
            # tensor condition define the return value (no guard on a tensor-valued flag needed).
            if _ends_with_return(s.body):
                if not _ends_with_return(s.orelse):
                    s.orelse = s.orelse + rest
                return out + _lower_block([s], kind, flag, retval)
            if _ends_with_return(s.orelse):
                s.body = s.body + rest
                return out + _lower_block([s], kind, flag, retval)
        if isinstance(s, kind):
            out.append(_assign(flag, ast.Constant(True)))
            if kind is ast.Return:
                out.append(_assign(retval, s.value if s.value is not None else ast.Constant(None)))
            return out
        sets_flag = _may_set(s, kind)
        _lower_children(s, kind, flag, retval)
        out.append(s)
        if sets_flag:
            rest = _lower_block(stmts[i + 1:], kind, flag, retval)
            if rest:
                out.append(_guard(flag, rest))
            return out
    return out


def _lower_children(s, kind, flag, retval):
    descend_loops = kind is ast.Return  # a return leaves every enclosing loop; break/continue only their own
    if descend_loops and isinstance(s, (ast.For, ast.While)) and not contains([s], ast.Return):
        return
    if isinstance(s, (ast.If, ast.With, ast.Try)) or (descend_loops and isinstance(s, (ast.For, ast.While))):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if block:
                lowered = _lower_block(block, kind, flag, retval)
                setattr(s, field, lowered or [ast.Pass()])
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = _lower_block(h.body, kind, flag, retval) or [ast.Pass()]
        if descend_loops and isinstance(s, (ast.For, ast.While)):
            _add_extra_test(s, flag)


def _may_set(s, kind):
    if kind is ast.Return:
        return contains([s], ast.Return)
    return contains([s], kind, stop_at_loops=True)


def _add_extra_test(loop, flag):
    """Makes a loop also stop once `flag` is set (stored for the control-flow converter)."""
    tests = getattr(loop, "ag_extra_tests", [])
    tests.append(flag)
    loop.ag_extra_tests = tests


def lower_loops(stmts, names):
    """Lowers break/continue of every loop in `stmts` (recursively, innermost loops included)."""
    for s in stmts:
        for child in ast.walk(s):
            if isinstance(child, (ast.For, ast.While)) and not getattr(child, "ag_lowered", False):
                _lower_loop(child, names)


def _lower_loop(loop, names):
    loop.ag_lowered = True
    prologue = []
    if contains(loop.body, ast.Continue, stop_at_loops=True):
        flag = names.make("continue")
        loop.body = [_assign(flag, ast.Constant(False))] + _lower_block(loop.body, ast.Continue, flag)
    if contains(loop.body, ast.Break, stop_at_loops=True):
        flag = names.make("break")
        loop.body = _lower_block(loop.body, ast.Break, flag)
        _add_extra_test(loop, flag)
        prologue.append(_assign(flag, ast.Constant(False)))
        if loop.orelse:
            loop.ag_after = [_guard(flag, loop.orelse)]
            loop.orelse = []
    loop.ag_prologue = prologue


def lower_function(fn_node, names):
    """Lowers loops' break/continue, then early returns of `fn_node` (in place)."""
    lower_loops(fn_node.body, names)
    body = fn_node.body
    needs_return_lowering = any(
        contains([s], ast.Return) for s in body if isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try)))
    if not needs_return_lowering:
        return
    flag, retval = "do_return", "retval_"
    lowered = _lower_block(body, ast.Return, flag, retval)
    fn_node.body = [
        _assign(flag, ast.Constant(False)),
        _assign(retval, ast.Call(func=ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()),
                                                     attr="UndefinedReturnValue", ctx=ast.Load()),
                                 args=[], keywords=[])),
    ] + lowered + [ast.Return(value=ast.Call(  # `ag__.ret(retval_, do_return)`: as TF's fscope.ret, it
        # reads the flag, so the flag is live to the end and each tensor `if` that sets it outputs it
        func=ast.Attribute(value=ast.Name(id="ag__", ctx=ast.Load()), attr="ret", ctx=ast.Load()),
        args=[ast.Name(id=retval, ctx=ast.Load()), ast.Name(id=flag, ctx=ast.Load())], keywords=[]))]
