"""Text tools every floor above may use: Chinese word segmentation (segment.py), numbers as values
(numbers.py), the sentences, terms and numbers of the material that the extractive writers and the weekly's
themes choose from (sentences.py), stored text to safe HTML (html.py)."""
