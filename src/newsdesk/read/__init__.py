"""What the three front ends (web pages, JSON API, MCP) read and answer with, below all of them:
the store's queries (queries.py), the answers' shapes (shapes.py), who may write (auth.py)."""
