"""Draft the next revision: `python -m newsdesk.store.migrations "what changes"`.

It upgrades a scratch SQLite store to the newest revision, compares it with schema.py and
writes the difference as a revision file in versions/. Read it and keep what is meant
(a rename, for one, comes out as a drop and an add).
"""

import sys
import tempfile

from alembic import command
from sqlalchemy import create_engine

from newsdesk.store.migrate import config, head, migrate


def main(message: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite:///{tmp}/draft.db")
        migrate(engine)
        with engine.connect() as conn:
            script = command.revision(config(conn), message, autogenerate=True, rev_id=f"{int(head()) + 1:04d}")
        engine.dispose()
    print(script.path)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit('usage: python -m newsdesk.store.migrations "what changes"')
    main(sys.argv[1])
