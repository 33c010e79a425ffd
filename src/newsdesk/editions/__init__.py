"""Editions: what readers get, assembled from the store and kept in the `editions` table.

cards     the event card (one builder for the daily edition, the site and the web app) and a day's tabs
daily     the daily edition of a date, one card per event, per language
weekly    the weekly report's form and row, from the parts its writers return (write/weekly.py, write/extractive/)
episode   the episode digest's row per language, from what its writers return (write/episode.py, translate.py, extractive/)
build     each kind's build as its stage runs it: what is due, handed to whoever writes (write/writers.py)
evaluate  `eval editorial`: the stages replayed on a labelled week

Every kind of edition is one entry in publish/outputs.py. The writers (write/) never import this
package: they return parts, and the edition's module here renders and stores them.
"""
