"""Text handling shared by stages: Chinese word segmentation (segment.py)."""
