"""Detached Python workers, started alike by every layer that starts one (see
``spawn.detached``)."""
