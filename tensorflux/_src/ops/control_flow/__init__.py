"""Control-flow ops: `cond`/`while_loop`/`case` (If and While ops holding their branch and body
graphs), `py_function`/`numpy_function`, higher-order functions (`map_fn`, `scan`, folds) and
`TensorArray`."""
