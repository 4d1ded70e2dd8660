"""Durable file writes shared by every layer that may do I/O (see ``files.atomic``)."""
