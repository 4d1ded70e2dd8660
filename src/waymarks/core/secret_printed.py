"""The credential rule of a secret a command prints: a pasted terminal session, a command
that prints a stored or generated secret, then the secret alone on the next line (or the
next prompt glued to it: :func:`waymarks.core.secret_admin.vault_value_end`). Each went out
in clear: 1Password's ``op read op://…``, Bitwarden's ``bw get password …``, ``pass show
…`` (``gopass``), macOS's ``security find-generic-password … -w``, ``aws ecr
get-login-password`` (the registry's password for 12 hours), ``kubectl get secret … -o
jsonpath=…`` (its ``| base64 -d`` too), ``gcloud secrets versions access``, ``az keyvault
secret show … --query value``, ``aws secretsmanager get-secret-value … SecretString
--output text``, ``aws ssm get-parameter --with-decryption … --output text``, ``doppler``
and ``infisical secrets get … --plain``, ``chamber read -q``, ``heroku auth:token``,
``lpass show --password``, ``secret-tool lookup``, and a generated secret: ``openssl rand
-hex|-base64 N`` (16 bytes or more), ``rails secret``, ``mix phx.gen.secret``. Part of
the rule table of :mod:`waymarks.core.secret_rules`, beside Vault's ``vault_field``; the
value is judged as it is (a reference, or a line of no letters or digits, holds none), and
a command whose output goes to a file or a pipe (but kubectl's into ``base64 -d``) prints
nothing there; warnings it wrote before the value (:data:`_WARNINGS`) may stand between.
The command's literal words, single-spaced, are its needles
(:data:`waymarks.core.secret_tokens.PRINTED_NEEDLES`, the pre-test's too).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_admin import PRINTED_VALUE
from waymarks.core.secret_commands import _NOT_TYPED
from waymarks.core.secret_tokens import PRINTED_NEEDLES, Rule

#: the rest of a command's line: no pipe, redirect or next command
_REST: Final = r"[^\n|;&`<>]{0,256}"


def _with(flag: str) -> str:
    """A flag (an expression) the command's line holds after it."""
    return f"(?={_REST}?{flag})"


_PRINTS: Final = "|".join((
    r"op read[ \t](?=" + _REST + r"?op://)",
    r"bw get password[ \t]",
    r"(?<![\w.-])pass show[ \t]", r"gopass show[ \t]",
    r"security find-(?:generic|internet)-password" + _with(r"[ \t]-w(?![^\s])"),
    r"get-login-password",
    r"kubectl get secrets?[ \t]" + _with("(?:jsonpath|go-template)") + _REST
    + r"+(?:\|[ \t]*base64[ \t]+(?:-d|-D|--decode)(?![^\s]))?",
    r"gcloud secrets versions access",
    r"az keyvault secret show" + _with(r"--query[ \t=][\"']?value(?![\w.])"),
    r"get-secret-value" + _with("SecretString") + _with(r"--output[ \t=]text"),
    r"ssm get-parameter(?![\w-])" + _with("--with-decryption") + _with(r"--output[ \t=]text"),
    r"(?:doppler|infisical) secrets get" + _with(r"--plain(?![\w-])"),
    r"chamber read" + _with(r"[ \t]-q(?![^\s])"),
    r"heroku auth:token",
    r"lpass show" + _with(r"--password(?![\w-])"),
    r"secret-tool lookup",
    r"openssl rand[ \t]+-(?:hex|base64)[ \t]+(?:1[6-9]|[2-9][0-9]|[1-9][0-9]{2,3})(?![^\s])",
    r"(?:(?<![\w.-])|(?<=bin/))rails secret(?![^\s])", r"phx\.gen\.secret",
))

#: a warning the command wrote on standard error before its value, which a captured
#: session shows between the two: oclif's ``›``-led lines (``heroku auth:token``'s ``›
#: Warning: token will expire …`` and its advice), ``Warning:`` or ``WARNING:`` lines (the
#: value after them went out in clear); four at most, each to its line's end
_WARNINGS: Final = (r"(?:[ \t]*(?:\u203a|(?i:warning)[:!])[^\n]{0,512}\r?\n){0,4}+")

PRINTED: Final = Rule("printed", "secret", lazy(
    r"(?:" + _PRINTS + r")" + _REST + r"+[ \t]*\r?\n" + _WARNINGS + r"[ \t]*(?!" + _NOT_TYPED + ")"
    r"(?P<printed>" + PRINTED_VALUE, re.ASCII),
    PRINTED_NEEDLES, anchored=True, wrapper=True, guard="\n")


#: what may stand before a command's needle on its line: nothing, or a shell's prompt
#: (anything to a prompt's character and a space), ``sudo``, then the program the needle
#: goes on (``aws [flags] ssm get-parameter``, ``mix phx.gen.secret``, ``bin/rails secret``)
_TYPED_HEAD: Final = lazy(r"(?:[^\n]*[$#%>\u279c\u276f][ \t]+"
                          # oh-my-zsh's ``➜  app git:(main) ✗ ``
                          r"(?:(?<=\u279c[ \t])[ \t]*[^\s]+(?:[ \t]+git:\([^)\n]*\))?"
                          r"(?:[ \t]+\u2717)?[ \t]+)?)?[ \t]*(?:sudo[ \t]+)?"
                          r"(?:(?:aws(?:\.exe)?|mix|bundle[ \t]+exec|npx|bunx)(?:[ \t]+[^\s]+)*?"
                          r"[ \t]+|(?:\./)?bin/)?")
#: how far before a command's needle its line's head is read
_HEAD_READ: Final = 256


def typed_at_prompt(match: re.Match[str]) -> bool:
    """Whether a ``printed`` match's command was typed: it starts its line, or stands after a
    prompt (``deploy@web-1:~$ pass show …``), ``sudo`` or its program's first words; a
    sentence naming it ("You pass show business a ticket") prints nothing."""
    text, at = match.string, match.start()
    line = text.rfind("\n", max(0, at - _HEAD_READ), at) + 1
    if line == 0 and at > _HEAD_READ:
        return False
    return _TYPED_HEAD.fullmatch(text, line, at) is not None
