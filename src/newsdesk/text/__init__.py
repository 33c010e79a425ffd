"""Text tools every floor above may use: numbers as values (numbers.py), stored text to safe HTML (html.py)."""
