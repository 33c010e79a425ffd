"""Publishing: Markdown with front matter, the static HTML site, RSS and JSON Feed."""
