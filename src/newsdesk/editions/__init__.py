"""Editions: what readers get, assembled from the store and kept in the `editions` table.
Each of the three editions is built here; write/ only writes their parts.

days     local days in the newsroom's timezone and the events of a day, in page order
cards    the event card (one builder for the daily edition, the site and the web app) and a day's tabs
labels   every interface word, in Chinese and English
daily    the daily edition of a date, one card per event, per language
weekly   the weekly report's form and its stored edition (the parts are written in write/)
episode  the episode digest's stored edition, per language, and a stored one read back
store    the one upsert every edition goes through, and the material key that lets an
         unchanged edition be skipped
"""
