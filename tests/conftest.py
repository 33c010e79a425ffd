"""Shared fixtures: real stores (SQLite file and PostgreSQL) and the shared data folder."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from newsdesk.store import open_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NEWSDESK_SHARED", ROOT.parent / "shared"))
PG_URL = os.environ.get("NEWSDESK_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")


@pytest.fixture(scope="session")
def shared() -> Path:
    assert SHARED.is_dir(), f"{SHARED} missing: tests read ../shared beside the project"
    return SHARED


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'newsdesk.db'}"


@pytest.fixture
def pg_url():
    """A private PostgreSQL schema per test, so tests (and parallel runs) never collide."""
    schema = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def engine(store_url):
    eng = open_store(store_url)
    yield eng
    eng.dispose()


@pytest.fixture
def sqlite_engine(sqlite_url):
    eng = open_store(sqlite_url)
    yield eng
    eng.dispose()
