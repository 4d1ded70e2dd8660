"""The web inspector (``waymarks ui``): a local page that shows, searches, explains and
corrects memory through the same service calls as the CLI.

An adapter like ``cli`` and ``mcp``: ``security`` (token, Host, CSRF, headers), ``reads``
(what pages show, one service request each), ``actions`` (each action a command of the
command table), ``app`` (routes and templates), ``server`` (Uvicorn, the printed URL).
"""
