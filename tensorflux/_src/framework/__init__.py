"""Tensors, graphs, the execution context, errors and nest."""
