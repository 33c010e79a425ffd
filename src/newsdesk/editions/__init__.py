"""Editions: what readers get, assembled from the store and kept in the `editions` table.

daily    the daily edition of a date, one card per event, per language
store    the one upsert every edition goes through, and the material key that lets an
         unchanged edition be skipped
"""
