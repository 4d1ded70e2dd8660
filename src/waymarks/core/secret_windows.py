"""The credential rules of Windows' shells: a secret PowerShell or cmd is given in a shape
no assignment's or flag's rule reads, each of which went out in clear:

- ``ConvertTo-SecureString 'VALUE' -AsPlainText -Force`` (``-String``, the switches in any
  order, inside ``New-Object PSCredential(…)``): the text is a password by the command's own
  switch (a variable, ``$pw``, is code);
- ``[Environment]::SetEnvironmentVariable('API_TOKEN', 'VALUE', 'User')`` (``[System.
  Environment]``): the variable's name is a string argument, no assignment's;
- cmd's ``setx API_TOKEN VALUE`` (``/M``): a name and a value parted by a space.

The names are the table's (``secret_rules._TF_SECRET_NAME`` and its qualifiers), passed
in, as :mod:`waymarks.core.secret_markup`'s are. Part of the rule table of
:mod:`waymarks.core.secret_rules`; a named value is judged as an assignment's quoted one
(``'changeme'`` is a word, data: it goes), the secure string's as a flag's.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: a single- or double-quoted PowerShell string on its line (``''`` inside a single-quoted
#: one is its quote), its text the group ``{name}`` or ``{name}_d``
_STRING = (r"(?:'(?P<{name}>(?:[^'\n]|''){{1,4096}})'"
           r"|\"(?P<{name}_d>(?:[^\"\n`]|`[^\n]){{1,4096}})\")")


def windows_rules(secret_name: str, qualifier: str) -> tuple[Rule, ...]:
    """The rules, a credential's name written as ``secret_name`` then ``qualifier``."""
    named = r"[\w.-]*?(?:" + secret_name + r")" + qualifier
    return (
        Rule("secure_string", "secret", lazy(
            r"convertto-securestring(?=[^\n|;]{0,256}?[ \t]-asplaintext(?![\w-]))"
            r"(?:[ \t]+-(?:asplaintext|force|string)(?![\w-]))*[ \t]+"
            + _STRING.format(name="secure_string"), re.ASCII | re.IGNORECASE),
            ("convertto-securestring",), folded=True, anchored=True, wrapper=True, guard="-"),
        Rule("win_env", "secret", lazy(
            r"setenvironmentvariable[ \t]*\([ \t]*(?P<win_env_n>['\"])" + named
            + r"(?P=win_env_n)[ \t]*,[ \t]*" + _STRING.format(name="win_env"),
            re.ASCII | re.IGNORECASE),
            ("setenvironmentvariable",), folded=True, anchored=True, wrapper=True, guard=","),
        Rule("setx", "secret", lazy(
            r"(?<![\w.-])setx(?:\.exe)?(?:[ \t]+/[a-z]{1,2})*[ \t]+(?P<setx_n>['\"]?)" + named
            + r"(?P=setx_n)[ \t]+(?:\"(?P<setx_d>[^\"\n]{1,4096})\"|(?P<setx>[^\s\"/]"
            r"[^\s\"]{0,4095}))", re.ASCII | re.IGNORECASE),
            ("setx",), folded=True, anchored=True, wrapper=True, guard=" "),
    )
