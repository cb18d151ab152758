"""holon-git as an MCP server: apply_patch, check_patch and read_region over stdio.

    git holon-apply mcp --repo path/to/repo     # docs/mcp.md

``tools``, ``confine``, ``region`` and ``calls`` are plain Python (the tools, the served
repositories, reading a region, answering a call); ``server`` is the only module that imports
the MCP SDK (the ``mcp`` extra), so nothing else pays for it.
"""
