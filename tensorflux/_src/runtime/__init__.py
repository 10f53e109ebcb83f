"""The runtime: graph passes, codegen (graph → Python source) and the executor."""
