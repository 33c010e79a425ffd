"""newsdesk: a self-hosted newsroom for the AI industry.

The package is a house of floors, one folder each, lowest first. A module imports its own floor and those
below it, never one above (tests/test_structure.py holds this; CONTRIBUTING.md's layout is generated from it
and from each floor's docstring). Nothing lives at the package root but the command (cli.py).
"""

__version__ = "0.1.0"

# One line, lowest first, as the floors are read (a literal of one string a line would be a word list).
_FLOOR_LINE = "core store text check llm ingest cluster stories rank write editions publish search push run eval serve"
FLOORS = tuple(_FLOOR_LINE.split(" "))
