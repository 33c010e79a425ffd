"""Alembic's script directory for the store: env.py, the revision template, versions/."""
