"""Editions: what readers get, assembled from the store and kept in the `editions` table.

days     local days in the newsroom's timezone and the events of a day, in page order
cards    the event card (one builder for the daily edition, the site and the web app) and a day's tabs
labels   every interface word, in Chinese and English
daily    the daily edition of a date, one card per event, per language
store    the one upsert every edition goes through, and the material key that lets an
         unchanged edition be skipped
"""
