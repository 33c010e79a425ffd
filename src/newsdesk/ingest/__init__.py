"""Ingest: fetch, parse, normalize, extract full text."""
