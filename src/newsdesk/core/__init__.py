"""The base floor every other floor may use: errors and exit codes, settings, the data model (Source, Item, Turn),
findings (one thing wrong with a written output) and labels (every interface word, zh / en)."""
