"""Cluster stage: dedup → embed → join or open an event → coverage facts.

Modules: anchors (cross-language exact anchors), dedup (URL/guid and near-identical text),
embed (USE or OpenAI-compatible vectors, kept in the store), events (the in-memory
incremental clusterer), independence (outlets vs independent outlets), stage (the store
path), evaluate (`newsdesk eval clusters`).
"""

from newsdesk.cluster.stage import ClusterStats, cluster_new_items, event_brief, refresh_event

__all__ = ["ClusterStats", "cluster_new_items", "event_brief", "refresh_event"]
