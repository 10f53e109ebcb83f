"""AutoGraph's source transformations: lowering of break/continue/return, control flow, expressions."""
