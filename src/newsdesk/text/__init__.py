"""Text tools every floor above may use: numbers as values (numbers.py), the sentences, terms and numbers
of the material that the extractive writers and the weekly's themes choose from (sentences.py), stored text to
safe HTML (html.py), which language a text is in (language.py), Chinese words (words.py: the one jieba set-up),
and the newsroom's word lists as data files (lexicon/)."""
