"""The credential rules of system administration: a password a command takes as one of
its arguments, with no flag or separator naming it (ipmitool's ``user set password ID
…``, Windows' ``net user NAME … /add``, ``openssl passwd …``, Grafana's and Drush's
password resets, MinIO's ``mc alias set``). Part of the rule table of
:mod:`waymarks.core.secret_rules`, after :mod:`waymarks.core.secret_commands`' flags;
each rule names its command and the words before the password, so prose and code never
reach it, and
:mod:`waymarks.core.secret_checks` judges its value as a flag's is (a reference, ``*``
or a mask holds none).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_commands import _COMMAND_END, _NOT_TYPED, _QUOTED_OR_BARE, _on
from waymarks.core.secret_tokens import PLACEHOLDER_PREFIX, Rule

#: ipmitool's ``user set password ID PASSWORD [16|20]``: a BMC user's new password
_IPMITOOL: Final = (r"ipmitool(?:\.exe)?(?=[ \t])" + _on(256)
                    + r"[ \t]user[ \t]+set[ \t]+password[ \t]+[0-9]{1,3}")

#: a password a command hashes or sets: ``openssl passwd [-6] [-salt S] PASSWORD`` (a
#: hash's input: ``usermod -p $(openssl passwd -1 …)``), ``grafana-cli admin
#: reset-admin-password PASSWORD`` (``grafana cli``), Drush's ``user:password NAME
#: PASSWORD`` (``upwd``, ``user-password``); and a token a CLI logs in with, an argument:
#: ``cargo login [--registry R] TOKEN``, ``ngrok authtoken TOKEN`` (``ngrok config
#: add-authtoken``), which went out in clear: a token's run of 16 or more (crates.io's are
#: 35, ngrok's 49; a word after the command is prose's, judged at each "cargo login" of a
#: text: 100 KB of them took 470 ms)
_SETS: Final = (r"(?:cargo(?:\.exe)?[ \t]+login(?:[ \t]+--registry[ \t=][^\s;|&<>()]{1,253})?"
                r"|ngrok(?:\.exe)?[ \t]+(?:config[ \t]+add-)?authtoken)"
                r"(?=[ \t]+[\"']?[A-Za-z0-9_-]{16})"
                r"|openssl(?:\.exe)?[ \t]+passwd(?:[ \t]+(?:-(?:salt|in)[ \t]+[^\s;|&<>()]{1,4096}"
                r"|-(?!in[ \t]|salt[ \t])[A-Za-z0-9]+))*+"
                r"|grafana(?:-cli|[ \t]+cli)(?:\.exe)?(?=[ \t])" + _on(128)
                + r"[ \t]admin[ \t]+reset-admin-password"
                r"|drush(?:\.php)?[ \t]+(?:user:password|user-password|upwd)[ \t]+"
                r"(?:\"[^\"\n]{1,64}\"|'[^'\n]{1,64}'|[^\s\"'-][^\s\"';|&<>]{0,63})")

#: Windows' ``net user NAME PASSWORD [/switches]`` (``NET USER``: its commands take any
#: case), the user quoted or a word not starting a switch; ``*`` asks for the password
_NET_USER: Final = (r"(?P<admin_net>)(?i:net)(?:\.exe)?[ \t]+(?i:user)[ \t]+"
                    r"(?:\"[^\"\n]{1,64}\"|'[^'\n]{1,64}'|[^\s/\"'*;|&<>][^\s\"';|&<>]{0,63})")

#: MinIO's client, ``mc alias set ALIAS URL ACCESS_KEY SECRET_KEY`` (``mc config host add``,
#: its older form): the secret key is the argument after the access key's, no name
_MC_ALIAS: Final = (r"mc(?:\.exe)?[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)"
                    r"(?:[ \t]+[^\s;|&<>-][^\s;|&<>]{0,2047}){3}")

#: one ``USER:PASSWORD`` line of cloud-init's ``chpasswd: list:`` (a block scalar's line,
#: or a YAML list's item): the password, to its line's end
_CLOUD_LINE: Final = (r"[ \t]+(?:-[ \t]+)?[^\s:'\"#-][^\s:'\"]{0,63}:(?P<cloud_password>[^\s'\"]"
                      r"{1,4096})[ \t]*(?:\r?\n|\Z)")
_CLOUD_LINES: Final = lazy(_CLOUD_LINE, re.ASCII)

#: what a shell's prompt ends with (bash's ``$``/``#``, zsh's ``%``, PowerShell's ``>``,
#: oh-my-zsh's and starship's arrows)
_PROMPT_ENDS: Final = "$#%>\u279c\u276f"
#: a value a command printed, the run of its line (its group's name before it): alone on its
#: line, or with a shell's next prompt glued to it (:func:`vault_value_end` says where it
#: ends): the run ends in a prompt's character, or one of the three words after it does
PRINTED_VALUE: Final = (r"[^\s]{6,4096}+)(?![^\s])(?=[ \t]*(?:\r?\n|\Z)|(?<=[" + _PROMPT_ENDS
                        + r"])[ \t]|(?:[ \t]+[^\s]+){0,2}?[ \t]+[^\s]*[" + _PROMPT_ENDS
                        + r"](?![^\s]))")

#: in :data:`waymarks.core.secret_rules.RULES`' order, after the command rules
ADMIN_RULES: Final = (
    # the password an administrator's command is given as an argument: it went out in
    # clear. Bare, where the command goes on with words (``ipmitool … password 2 PW is
    # set``) or ``net user NAME VALUE`` has no switch after it, it is judged as prose is
    # ("net user count rose": :func:`admin_value_in_prose`)
    Rule("admin_password", "secret", lazy(
        r"(?<![\w.-])(?:" + _IPMITOOL + "|" + _NET_USER + "|" + _SETS + "|" + _MC_ALIAS
        + r")[ \t]+(?![/-])" + _QUOTED_OR_BARE.format(name="admin_password", least=1), re.ASCII),
        ("ipmitool", "net", "openssl", "grafana", "drush", "mc", "cargo", "ngrok"), folded=True,
        anchored=True,
        wrapper=True, guard=" "),
    # what ``vault kv get -field=password secret/x`` (``vault read -field=token …``) prints,
    # a field named for a credential: a pasted terminal session's next line, alone on it,
    # went out in clear
    Rule("vault_field", "secret", lazy(
        r"(?<![\w.-])vault(?:\.exe)?[ \t]+(?:kv[ \t]+get|read)[ \t][^\n|;&`<>]{0,256}?"
        r"-field=[\"']?[\w.-]{0,64}?(?:pass|pwd|token|secret|key|credential|auth)[\w.-]{0,64}+"
        r"[\"']?(?![^\s;|&<>])[^\n|;&`<>]{0,256}+\r?\n[ \t]*(?!" + _NOT_TYPED + ")"
        r"(?P<vault_field>" + PRINTED_VALUE, re.ASCII | re.IGNORECASE),
        ("vault",), folded=True, anchored=True, wrapper=True, guard="="),
    # cloud-init's ``chpasswd:`` module, its ``list:`` of ``USER:PASSWORD`` lines (a block
    # scalar, ``list: |``, or a YAML list) as a user-data file sets the machine's logins:
    # each line's password went out in clear. One span per line (:func:`cloud_passwords`)
    Rule("chpasswd_list", "secret", lazy(
        r"(?m:^)[ \t]*(?:-[ \t]+)?chpasswd:[ \t]*\r?\n(?:[ \t]+[^\n]*\n){0,16}?[ \t]+list:"
        r"[ \t]*(?:[|>][-+]?[ \t]*)?\r?\n(?P<chpasswd_list>(?:" + _CLOUD_LINE + r"){1,256}+)",
        re.ASCII), ("chpasswd:",), wrapper=True, guard=":"),
)


#: a switch after ``net user NAME PASSWORD`` (``/add``, ``/domain``): the command's
_SWITCH_AFTER: Final = lazy(r"[ \t]+/[A-Za-z]")
#: what ends ipmitool's ``user set password ID PASSWORD``: the command, or its size
_IPMITOOL_END: Final = lazy(_COMMAND_END + r"|[ \t]+(?:16|20)(?![^\s;|&])", re.ASCII)


def admin_value_in_prose(match: re.Match[str], end: int) -> bool:
    """Whether the bare value of an ``admin_password`` match, ending at ``end``, stands
    where a sentence may go on: ``net user`` with no switch after it ("the net user count
    rose"), or ipmitool's with words after it; such a value is judged as one stated in
    prose (a quoted one is data)."""
    if match.lastgroup != "admin_password":
        return False
    after = _SWITCH_AFTER if match.group("admin_net") is not None else _IPMITOOL_END
    return after.match(match.string, end) is None


#: how far before ``vault`` the prompt it was typed at is read, and how far after a value
#: what follows it on its line
_PROMPT_READ: Final = 256


def vault_value_end(match: re.Match[str], end: int) -> int:
    """Where the value a ``vault_field`` match read ends (its start: none is there). ``vault
    kv get -field=…`` prints no line break after the value, so a terminal's next prompt
    stands glued to it, a command typed after it (``Xk9v…deploy@web-1:~$ exit``): the
    value ends where the prompt the command was typed at begins again (its line's head
    before ``vault``, up to its last prompt character), or, that prompt unknown, the run
    goes whole when a prompt ends it or the next words (``…[deploy@web-1 ~]$ exit``, zsh's
    ``…deploy@mbp app % ls``). Words of another kind after the run are not its line's
    value alone: none (``Error: permission denied``)."""
    text, start = match.string, match.start(match.lastgroup or 0)
    line_end = text.find("\n", end, end + _PROMPT_READ)
    rest_end = min(len(text), end + _PROMPT_READ) if line_end == -1 else line_end
    rest = text[end:rest_end].split(None, 3)[:3]
    if not rest and text[end - 1] not in _PROMPT_ENDS:
        return end  # alone on its line, no prompt glued (most values: read no further)
    head = text[max(0, match.start() - _PROMPT_READ):match.start()].rpartition("\n")[2]
    prompt = head[:max(head.rfind(c) for c in _PROMPT_ENDS) + 1].strip()
    if prompt and text.startswith(prompt, start):
        return start  # the next prompt: the command printed nothing there
    if prompt:
        at = text.find(prompt, start + 6, rest_end + len(prompt))
        while start < at < end:  # (it starts inside the run: the value holds no space)
            if text[at + len(prompt):at + len(prompt) + 1] in ("", " ", "\t", "\r", "\n"):
                return at
            at = text.find(prompt, at + 1, rest_end + len(prompt))
    if not rest:
        return end
    if text[end - 1] in _PROMPT_ENDS:
        return end - 1  # (the prompt's character stays with the command after it)
    if any(
            word[-1] in _PROMPT_ENDS and (len(word) > 1 or word == "%") for word in rest):
        return end
    return start


#: what cloud-init reads as no password of the list's: a random one made there
#: (``RANDOM``, ``R``), a hash (``$6$…``) or a variable; and one already redacted
_NOT_GIVEN: Final = lazy(r"(?i:r(?:andom)?)|[$].*|" + re.escape(PLACEHOLDER_PREFIX) + ".*",
                         re.ASCII | re.DOTALL)


def cloud_passwords(match: re.Match[str]) -> list[tuple[int, int]]:
    """The spans of the passwords of a ``chpasswd_list`` match, each line's, but for those
    cloud-init makes or reads as a hash (:data:`_NOT_GIVEN`)."""
    return [line.span("cloud_password")
            for line in _CLOUD_LINES.finditer(match.string, *match.span("chpasswd_list"))
            if _NOT_GIVEN.fullmatch(line.group("cloud_password")) is None]
