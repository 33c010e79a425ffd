"""newsdesk: a self-hosted newsroom for the AI industry."""

__version__ = "0.1.0"
