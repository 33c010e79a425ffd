"""The output checker, deterministic and below every writer: a written output's numbers, quotes and names must be
found in its material; what the writer did not see must be said; the text must be clean (checker.py)."""
