"""tensorflux's implementation, private as `jax._src` is: rooms stacked in floors, each importing only from the
floors below it (see docs/architecture.md). Public names reach users only through the namespaces that
`namespaces.py` builds from each module's `API` table."""
