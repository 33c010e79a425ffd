"""What readers and assistants reach, over one store: the store's queries for pages, API and MCP (queries.py),
the JSON answers' shapes (shapes.py), who may write (auth.py), the web app's pages and its render cache
(app.py, cache.py), the JSON API (api.py) and the MCP server (mcp.py, `newsdesk mcp` and /mcp in the web app).
"""
