"""Text tools every floor above may use: Chinese words (segment.py: the one segmentation set-up), which
language a text is in (language.py), numbers as values (numbers.py), the sentences, terms and numbers of the
material that the extractive writers and the weekly's themes choose from (sentences.py), stored text to safe
HTML (html.py), and the newsroom's word lists as data files (lexicon/)."""
