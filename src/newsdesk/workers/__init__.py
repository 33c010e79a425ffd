"""The newsroom on many machines: Celery workers over one store (PostgreSQL), Redis or RabbitMQ as broker.

units.py   the units of work (fetch one source, place new items, one analysis, one daily edition, a stage)
claims.py  the `tasks` table: a unit's queue mark, its lease (one worker at a time) and its last outcome
app.py     the Celery app, `newsdesk worker` and `newsdesk beat`

Nothing here is imported by the single-machine commands: `newsdesk run` needs no broker.
"""
