"""Ops: the registry (`apply`) and one module per op family."""
