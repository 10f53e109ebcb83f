"""The names TensorFlow gives to the tensors an op's inputs were converted from.

TensorFlow converts a Python value passed to an op inside that op's name scope, so `x * 2.0` makes the
constant `mul/y`; a list becomes the Pack `concat/values_1` with its elements inside it, and a variable
read for an input is `mul/ReadVariableOp`. Tensorflux converts before the op has its name: the Graph
marks such implicit ops when they are made, and `scope_implicit_inputs` renames them once their consumer
is named (giving the provisional names back, so the next plain `Const` is numbered as in TensorFlow).
"""

__all__ = ["scope_implicit_inputs", "converted_input_names"]


def scope_implicit_inputs(graph, op, input_names):
    """Renames the implicit constants created just before `op` for it to `<op.name>/<input name>`, and
    implicit variable reads to `<op.name>/ReadVariableOp`. An implicit Pack (an autopacked list) takes
    `<op.name>/<input name>` too, and the elements converted for it move into that scope with it."""
    trailing = set()    # ids of the implicit ops made just before `op`
    ops = graph._ops
    implicit, scoped_inputs = graph._implicit_consts, graph._scoped_inputs
    captures_from = len(ops) - 2 - len(op.inputs)
    for k in range(len(ops) - 2, -1, -1):   # walk back by index: slicing the op list made tracing quadratic
        key = id(ops[k])
        if key in scoped_inputs:
            continue        # made for an implicit op below (`[x, 2.0]` packed for a list input)
        if key not in implicit:
            if k > captures_from and ops[k].opdef is None and ops[k].type == "Placeholder":
                continue    # a capture made for this op's inputs (a cond branch's `x * 2.0`)
            break
        trailing.add(key)
    if not trailing:
        return
    renamed = []
    deferred = graph._deferred_names
    for i, t in enumerate(op.inputs):
        const = t.op
        if id(const) in trailing and (i < len(input_names) or id(const) in deferred):
            trailing.discard(id(const))
            implicit.discard(id(const))
            if id(const) in deferred:       # a captured graph tensor: `<op>/<its op's name>`, first named now
                graph.name_deferred(const, f"{op.name}/{const.name}")
                continue
            scoped = "ReadVariableOp" if const.type == "ReadVariableOp" else input_names[i]
            renamed.append((const, f"{op.name}/{scoped}"))
            scoped_inputs.add(id(const))
            if const.source is None:
                const.source = op.source
    for k in range(len(ops) - 2, -1, -1):    # made for something else in the same statement
        if not trailing:
            break
        if id(ops[k]) in trailing:
            trailing.discard(id(ops[k]))
            if ops[k].source is None:
                ops[k].source = op.source
            if id(ops[k]) in deferred:
                graph.name_deferred(ops[k])
    _rename_into(graph, renamed)


def _rename_into(graph, renamed):
    """Gives each implicit op of `renamed` ([(op, scoped name)]) the unique name made from its new name.
    The old names are given back newest first, so that the next `Const` is named as if they had never
    been taken; the inputs named inside an op's scope follow it (`packed/0` to `concat/values_1/0`)."""
    if len(renamed) == 1 and not renamed[0][0].inputs:    # `x * 2.0`: one Const, nothing inside it
        op, name = renamed[0]
        old = op.name
        _release_name(graph, old)
        del graph._by_name[old]
        op.name = graph._unique_scoped(name)
        graph._by_name[op.name] = op
        return
    olds = [op.name for op, _ in renamed]
    for name in sorted(olds, key=lambda n: _op_index(graph, n), reverse=True):
        _release_name(graph, name)
        del graph._by_name[name]
    for (op, name), old in zip(renamed, olds):
        op.name = graph._unique_scoped(name)
        graph._by_name[op.name] = op
        prefix = old + "/"
        _rename_into(graph, [(t.op, op.name + "/" + t.op.name[len(prefix):]) for t in op.inputs
                           if id(t.op) in graph._scoped_inputs and t.op.name.startswith(prefix)])


def _op_index(graph, name):
    op = graph._by_name[name]
    ops = graph._ops
    for k in range(len(ops) - 1, -1, -1):
        if ops[k] is op:
            return k
    return -1


def _release_name(graph, name):
    """Gives back the most recently allocated `name` so the next op may take it (as if never used)."""
    base, _, suffix = name.rpartition("_")
    key = name.lower()
    if graph._used_names.get(key) == 1 and not (base and suffix.isdigit()):
        del graph._used_names[key]
    elif base and suffix.isdigit() and graph._used_names.get(base.lower()) == int(suffix) + 1:
        graph._used_names[base.lower()] = int(suffix)
        graph._used_names.pop(key, None)


def converted_input_names(opdef, count):
    """The names of the `count` inputs of an `opdef` op under which constants converted for them are scoped:
    its input names, a list argument's as `<name>_<i>` (TensorFlow converts a list's elements one by one)."""
    names = opdef.input_names
    lists = opdef.list_input
    if not lists:
        return names
    lists = (lists,) if isinstance(lists, str) else lists
    length = (count - (len(names) - len(lists))) // len(lists)
    out = []
    for name in names:
        out.extend([f"{name}_{i}" for i in range(length)] if name in lists else [name])
    return out
