"""The MCP tools, one per module; each has ``register(server, app, serial)``."""
