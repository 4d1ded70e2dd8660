"""The command table: every ``waymarks`` command that reads or changes memory, shared by
the command line (``waymarks …``, ``waymarks context "…"``) and the hosts' slash commands
(Pi's ``/context …``).

It is neutral ground between the adapters: it imports the service (and the personal
package), never ``cli``, ``hosts`` or ``mcp``. Each command parses its arguments (click),
calls service methods, and returns a :class:`~waymarks.commands.base.Result` (a JSON
document, a plain text, optionally a table) for its caller to print: no rules live here,
and nothing is printed here. Launchers (``mcp``, ``bridge``, installers, the Claude Code
hook) are not in the table: they start adapters, so they live in the CLI.
"""
