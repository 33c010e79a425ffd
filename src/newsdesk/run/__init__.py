"""Running the newsroom: the stages as one list (pipeline.py: `newsdesk run` calls them in order, a worker
calls one by name), `run --every` / `serve --every` (schedule.py), and the same work on many machines:
Celery workers over one store (units.py: the units of work; claims.py: the `tasks` table, a unit's queue mark,
lease and last outcome; workers.py: the Celery app, `newsdesk worker` and `newsdesk beat`). The single-machine
commands never import the workers' modules: `newsdesk run` needs no broker.
"""
