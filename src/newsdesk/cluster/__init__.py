"""Cluster stage: dedup → embed → join or open an event → coverage facts.

Modules: anchors (cross-language exact anchors), dedup (URL/guid and near-identical text),
embed (USE or OpenAI-compatible vectors, kept in the store), events (the in-memory
incremental clusterer), independence (outlets vs independent outlets), stage (the store
path), evaluate (`newsdesk eval clusters`).
"""

__all__ = ["ClusterStats", "cluster_new_items", "event_brief", "refresh_event"]


def __getattr__(name: str):
    # Loaded on first use: the clusterer's MinHash / scipy stack costs seconds, and the web app
    # and the editions import this package only for its story links (stories/threads.py).
    if name in __all__:
        from newsdesk.cluster import stage

        return getattr(stage, name)
    raise AttributeError(f"module 'newsdesk.cluster' has no attribute {name!r}")
