"""Editions: what readers get, assembled from the store and kept in the `editions` table.

cards     the event card (one builder for the daily edition, the site and the web app) and a day's tabs
daily     the daily edition of a date, one card per event, per language
build     each kind's build as its stage runs it: what is due, handed to whoever writes (write/writers.py)
evaluate  `eval editorial`: the stages replayed on a labelled week

Every kind of edition is one entry in publish/outputs.py; the weekly's and the episode digest's
form and row are still written with their writers (write/weekly_edition.py, write/episode_edition.py).
"""
