"""The package's version, in a module of its own: the receipt and the MCP server name it
without importing the package's public face (which imports the API, which imports the
receipt), and the build reads it from here (pyproject.toml, [tool.hatch.version])."""

__version__ = "0.1.0"
