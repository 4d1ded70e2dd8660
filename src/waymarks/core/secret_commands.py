"""The credential rules of command lines: a password a command is given by a flag, on its
standard input or by its configuration command (``mysql -pS3cret``, ``docker login -p …``,
``echo "…" | docker login --password-stdin``, ``npm config set …:_authToken …``, curl's
``-u USER:PASSWORD``, smbclient's ``-U USER%PASSWORD``). Part of the rule table of
:mod:`waymarks.core.secret_rules` (:mod:`waymarks.core.secret_checks` judges their
matches), kept here as the one seam of that table that is about shells rather than file
formats: each rule names its command, so prose and code never reach it.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule
from waymarks.core.secret_values import is_reference, setting_is_secret


def _on(most: int) -> str:
    """Up to ``most`` characters of a command's arguments before the flag a rule looks
    for, as few as may be: on the command's line, or on the lines a ``\\`` continues it to
    (AWS's docs put each flag on a line of its own so), never past a shell's operator."""
    return r"(?:[^\n|;&`\\]|\\(?:\r?\n|[^\n])){0," + str(most) + "}?"


#: commands whose ``-pPASSWORD`` carries a password (MySQL's and MariaDB's clients)
_PASSWORD_COMMANDS: Final = (
    r"(?:mysql(?:dump|admin|import|check|show|slap|pump|binlog)?"
    r"|mariadb(?:-(?:dump|admin|import|check|show|slap|binlog))?)")
#: (command, flag) whose password follows the flag, after spaces or glued: a registry
#: login's or sshpass's ``-p``, redis-cli's ``-a`` (``--pass``), openssl's ``-k`` and ``-pass``,
#: ``-passin``, ``-passout``, ``-password`` with ``pass:`` (``env:``, ``file:`` name one),
#: zip's and unzip's ``-P``, 7-Zip's ``-p`` (glued: ``-p`` alone prompts), ``-w`` of
#: the OpenLDAP clients (``-W`` prompts), sqlcmd's and bcp's ``-P``, MongoDB's ``-p``,
#: rabbitmqadmin's ``-p`` (its ``-P`` is the port), ipmitool's ``-P``, ssh-keygen's ``-N``/``-P``
_LOGIN_FLAGS: Final = (
    (r"(?:docker|podman|buildah|nerdctl)(?:\.exe)?[ \t]" + _on(64) + "login"
     r"|helm[ \t]+registry[ \t]+login|az[ \t]+login|sshpass", "-p"),
    ("redis-cli", r"-a|--pass(?=[ \t])"),
    ("rabbitmqadmin", r"-p(?=[ \t])"),
    (r"openssl(?:\.exe)?", r"-[kK](?=[ \t])|-pass(?:in|out|word)?[ \t]+(?:pass:|(?=['\"]pass:))"),
    ("(?:un)?zip", "-P"),
    (r"7z[arz]?(?:\.exe)?", r"-p(?![ \t])"),
    ("ldap[a-z]+", "-w"),
    # SQL Server's clients' ``-P``, MongoDB's shell's and tools' ``-p`` (alone, it prompts)
    (r"(?:sqlcmd|bcp)(?:\.exe)?", "-P"),
    (r"mongo(?:sh|dump|restore|export|import|stat|top|files)?(?:\.exe)?", r"-p(?=[ \t])"),
    # ipmitool's ``-P`` (a BMC's password; ``-E`` and ``-f`` name where it is kept)
    (r"ipmitool(?:\.exe)?", "-P"),
    # the MQTT clients' ``-P`` (``mosquitto_pub``, ``mosquitto_sub``, ``mosquitto_rr``) and
    # InfluxDB's ``influx setup`` ``-p`` (its admin's; ``--password`` is a flag's name)
    (r"mosquitto_(?:pub|sub|rr)(?:\.exe)?", "-P"),
    (r"influx(?:\.exe)?[ \t]+setup", r"-p(?=[ \t])"),
    # ssh-keygen's new and old passphrase (``-N ""``, empty, holds none), its quote glued
    # to the flag too (``-N'…'``, as getopt takes it)
    (r"ssh-keygen(?:\.exe)?", r"-[NP](?=[ \t'\"])"),
    # a package index's token given to twine's and Poetry's ``-p`` (``-u __token__ -p …``),
    # DigitalOcean's to ``doctl auth init -t``: these went out in clear
    (r"twine(?:\.exe)?[ \t]+upload|poetry(?:\.exe)?[ \t]+publish", r"-p(?=[ \t])"),
    (r"doctl(?:\.exe)?[ \t]+auth[ \t]+init", r"-t(?=[ \t])"),
)
#: a command that logs in to a registry and can read its password on standard input
_STDIN_COMMAND: Final = (r"(?<![\w.-])(?:sudo[ \t]+)?(?:docker|podman|buildah|nerdctl|skopeo"
                         r"|oras|crane|cosign|helm(?:[ \t]+registry)?|finch)(?:\.exe)?"
                         r"[ \t]" + _on(64) + r"login[ \t]")
#: ``sudo -S`` (``--stdin``), which reads the password on standard input, its flags
#: before it or glued to it (``-kS``)
_SUDO_STDIN: Final = (r"(?<![\w.-])sudo(?:[ \t]+-[A-Za-z]+)*?[ \t]+(?:-[A-Za-z]*S[A-Za-z]*"
                      r"|--stdin)(?![\w-])")
#: a command that reads a token or a password on standard input: ``gh auth login
#: --with-token``, RHEL's ``passwd --stdin [USER]``, ``passwd USER`` given both lines (a
#: here-string or heredoc after it too), ``smbpasswd -s`` (``-a -s``), ``openssl passwd
#: -stdin`` (which hashes the password it reads: the hash's input went out in clear);
#: chpasswd's lines are its own rule's
_TOKEN_STDIN: Final = (r"(?<![\w./-])(?:sudo[ \t]+)?(?:gh(?:\.exe)?[ \t]+auth[ \t]+login"
                       r"[^\n|;&`<>]{0,256}?--with-token"
                       r"|openssl(?:\.exe)?[ \t]+passwd[^\n|;&`<>]{0,256}?[ \t]-stdin"
                       r"|passwd(?:[ \t]+--stdin)?"
                       r"(?:[ \t]+[a-z_][\w.-]{0,31})?(?=[ \t]*(?:[\n;|&)<]|\Z))"
                       r"|smbpasswd(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*s[A-Za-z]*)(?![\w-])")
#: a secret store's command that reads the secret to keep on standard input: ``vercel env
#: add NAME [ENV]``, ``gh secret set NAME``, ``wrangler secret put NAME`` (always, when it
#: is not a terminal), ``gcloud secrets create`` or ``versions add`` (with
#: ``--data-file=-`` or ``/dev/stdin``)
_VERCEL: Final = (r"(?:vercel(?:\.cmd|\.exe)?[ \t]+env[ \t]+add|gh(?:\.exe)?[ \t]+secret[ \t]+set"
                  r"|wrangler(?:\.cmd)?[ \t]+secret[ \t]+put)[ \t]")
_GCLOUD: Final = r"gcloud(?:\.cmd)?[ \t]+secrets[ \t]+(?:create|versions[ \t]+add)[ \t]"
_DATA_FILE_STDIN: Final = r"--data-file(?:=|[ \t]+)(?:-|/dev/stdin)(?![^\s;|&<>()])"
#: ``kubectl create secret generic NAME --from-file=[KEY=]/dev/stdin``: the key's value is
#: what it reads there
_KUBECTL: Final = r"kubectl(?:\.exe)?[ \t]+create[ \t]+secret[ \t]"
_FROM_FILE_STDIN: Final = (r"--from-(?:file|env-file)(?:=|[ \t]+)(?:[^\s=]{1,253}=)?/dev/stdin"
                           r"(?![^\s;|&<>()])")
#: a line after a typed command that is a transcript's, not what was typed: a label of
#: letters alone (``Output:``) or a Markdown code fence's opening (```` ```console ````)
_NOT_TYPED: Final = r"(?:[A-Za-z][A-Za-z-]{0,64}:|`{3,}[\w+.-]*|~{3,}[\w+.-]*)[ \t]*(?:\r?\n|\Z)"
#: ``docker secret create NAME -``: the secret read on standard input
_DOCKER_SECRET: Final = (r"docker(?:\.exe)?[ \t]+secret[ \t]+create[ \t][^\n|;&`<>]{0,256}?"
                         r"[ \t]-(?=[ \t]*(?:[\n;|&<>]|\Z))")
#: a command a pipe's ``echo …`` feeds a secret, which it reads on standard input
PIPED_INTO: Final = (_STDIN_COMMAND + r"[^\n;&`]{0,256}?--password-stdin|" + _SUDO_STDIN + "|"
                     + _TOKEN_STDIN + r"|(?<![\w.-])(?:sudo[ \t]+|(?:npx|bunx|pnpx)[ \t]+)?(?:"
                     + _VERCEL + "|" + _GCLOUD + r"[^\n;&`]{0,256}?" + _DATA_FILE_STDIN + "|"
                     + _KUBECTL + r"[^\n;&`]{0,256}?" + _FROM_FILE_STDIN + "|" + _DOCKER_SECRET
                     + ")")
_STORE_COMMAND: Final = (r"(?<![\w.-])(?:sudo[ \t]+)?(?:" + _VERCEL + "|" + _GCLOUD + "|"
                         + _KUBECTL + "|" + _DOCKER_SECRET + ")")
#: a command's arguments to the end of its line or a shell's operator, a quoted one's
#: inside (a generated password's ``&``, ``|`` or ``;``) included, to a quote left open,
#: and on over a line a ``\`` continues (``fly secrets set \`` and a pair on each line
#: after it): each character starts one branch only, each taken whole, so it is read once
_ARGUMENTS: Final = (r"(?:'[^'\n]{0,4096}+'|\"[^\"\n]{0,4096}+\"|[^\n|;&`'\"\\]++"
                     r"|\\(?:\r?\n|[^\n])){0,4096}+")
#: the secret store's command that reads ``NAME=VALUE`` lines on its standard input
_FLY_IMPORT: Final = r"(?:fly|flyctl)(?:\.exe)?[ \t]+secrets[ \t]+import(?![\w-])"
#: a heredoc's operator and word (``<<EOF``, ``<<-'END'``)
_HEREDOC: Final = r"<<-?[ \t]*['\"]?\w+['\"]?"
#: a value quoted on its line, or bare to a space, quote or a shell's operator
_QUOTED_OR_BARE: Final = (r"(?:'(?P<{name}_q>[^'\n]{{{least},4096}})'"
                          r"|\"(?P<{name}_d>[^\"\n]{{{least},4096}})\""
                          r"|(?P<{name}>[^\s\"'`\\;|&<>()]{{{least},4096}}))")
#: a here-string's value in ANSI-C quotes, ``$'PW\nPW'`` (both of ``passwd``'s lines)
_ANSI_C: Final = r"\$'(?P<stdin_login_a>(?:[^'\\\n]|\\[^\n]){6,4096})'"
#: where a command's name starts: not inside a word or path (``unzip``'s "zip" too)
_COMMAND_START: Final = r"(?:(?<![\w.-])|(?<=(?<![\w.-])un)(?=zip))"


def _user_and_password(name: str, sep: str) -> str:
    """``USER{sep}PASSWORD`` after its flag (``-u me:pw``, ``-U 'me%pw'``, ``--user=…``,
    ``-u me:"pw"``), the password in the group ``name`` (``name_q``, ``name_d``,
    ``name_pq``, ``name_pd`` when quoted)."""
    return (rf"(?:[ \t]+|=)?(?:'[^'\s{sep}]*{sep}(?P<{name}_q>[^'\n]{{1,4096}})'"
            rf"|\"[^\"\s{sep}]*{sep}(?P<{name}_d>[^\"\n]{{1,4096}})\""
            rf"|[^\s\"'`{sep};|&<>()]*{sep}(?:'(?P<{name}_pq>[^'\n]{{1,4096}})'"
            rf"|\"(?P<{name}_pd>[^\"\n]{{1,4096}})\")"
            rf"|[^\s\"'`{sep};|&<>()]*{sep}(?P<{name}>[^\s\"'`\\;|&<>()]{{1,4096}}))")




#: where a command that takes its password last ends: its line's end (CRLF too, a script
#: saved on Windows), a shell's operator, or a comment after a space (``… admin PW  # ops``):
#: either went unread, and the password before it out in clear; or the closing backtick of
#: Markdown's inline code or quote of a string (a JSON one: an agent's ``{"command": "…"}``)
#: quoting the command, which a value (bare, or quoted whole) cannot hold
_COMMAND_END: Final = r"(?=[ \t]*(?:\r?\n|[;|&<>)`\"]|\Z)|[ \t]+#)"
#: what parts a command's arguments: spaces, or a ``\`` ending the line (curl's, htpasswd's)
_ARG_SEP = r"(?:[ \t]*\\\r?\n[ \t]*|[ \t]+)"
#: one of htpasswd's arguments before its password (the file, the user), quoted or a word
_HTPASSWD_ARG: Final = (_ARG_SEP + r"(?:'[^'\n]{0,4096}'|\"[^\"\n]{0,4096}\""
                        r"|[^\s\"'`;|&<>()\\-][^\s;|&<>()]{0,4095})")


def _args_before(flag: str) -> str:
    """A command's arguments before the first one ``flag`` matches the start of, each
    whole (quoted, its ``;`` or ``|`` included, or a run), parted by spaces or a ``\\``
    ending the line, up to 64 (a browser's copy of a curl puts two for each of a few
    headers before its cookies; lftp's ``-e "…; quit"`` its script), each read once
    (possessive), then the space before the flag."""
    return (r"(?:" + _ARG_SEP + r"(?!" + flag + r")"
            r"(?:'[^'\n]{0,4096}'|\"(?:[^\"\\\n]|\\[^\n]){0,4096}\""
            r"|[^\s'\"|;&`\\]{1,4096})){0,64}+" + _ARG_SEP)


#: curl's arguments before its cookie flag
_CURL_ARGS: Final = _args_before(r"(?:-b|--cookie)(?:[ \t]|=)")


#: ``sudo`` and its flags before the command it runs (``sudo -S``, ``sudo -u root``)
_SUDO: Final = r"sudo(?:[ \t]+(?:-[A-Za-z]+|-[ugCDhpRT][ \t]+[\w.%/-]{1,64}))*[ \t]+"
#: base64 text as a shell's argument, and base64's flag to decode it (GNU's, BSD's ``-D``)
_BASE64_RUN: Final = r"[A-Za-z0-9+/]{8,4096}={0,2}"
_DECODE: Final = r"(?:[ \t]+-[A-Za-z]+)*?[ \t]+(?:-[A-Za-z]*[dD][A-Za-z]*|--decode)(?![\w-])"

#: a ``USER:PASSWORD`` line given to chpasswd: quoted (printf's ``\n`` may end it) or bare;
#: no user holds a ``[`` (``[REDACTED:secret]`` is no line: its redaction again was not)
_CHPASSWD_LINE: Final = (r"(?:'[^'\s:\[]{1,64}:(?P<chpasswd_q>[^'\\\n]{1,4096})(?:\\n)?'"
                         r"|\"[^\"\s:\[]{1,64}:(?P<chpasswd_d>[^\"\\\n]{1,4096})(?:\\n)?\""
                         r"|[^\s'\":|;&<>\[]{1,64}:(?P<chpasswd>[^\s'\"`\\|;&<>()]{1,4096}))")


#: a parameter of Oracle's export and import tools after the login (``file=``,
#: ``directory=``, ``schemas=``): ``exp``/``imp`` name a command then, not a word
_ORACLE_PARAMETER: Final = r"[ \t]+[A-Za-z_]{2,32}="

_ORACLE_PARAMETER_AFTER: Final = lazy(_ORACLE_PARAMETER, re.ASCII)


def oracle_tool_login(match: re.Match[str], end: int) -> str:
    """How an ``oracle_login`` match (its value ending at ``end``) of an export or import
    tool stands with no database after it: ``"parameter"`` (one follows: data, as a
    flag's, though a short word stays: "exp x/y t=3" is a formula), ``"alone"`` (it ends
    its command: "impdp and/or expdp" says that much, so judged as prose's), else ``""``
    (``@DB`` follows, or another client's)."""
    text = match.string
    if match.group("oracle_tool") is None or text.startswith("@", end):
        return ""
    return "parameter" if _ORACLE_PARAMETER_AFTER.match(text, end) is not None else "alone"

#: in :data:`waymarks.core.secret_rules.RULES`' order, after a .pgpass line's rule
COMMAND_RULES: Final = (
    # a password glued to ``-p`` of a command that takes one so (``mysql -uroot -pS3cret``;
    # ``-p`` alone prompts, and ``mkdir -p``, ``ssh -p 22`` are other commands' flags)
    Rule("short_flag", "secret", lazy(
        r"(?<![\w.-])" + _PASSWORD_COMMANDS + r"(?:\.exe)?(?=[ \t])" + _on(256) + r"[ \t]-p"
        r"(?:'(?P<short_flag_q>[^'\n]{1,4096})'|\"(?P<short_flag_d>[^\"\n]{1,4096})\""
        r"|(?P<short_flag>[^\s\"'`\\;|&<>()]{1,4096}))", re.ASCII),
        ("mysql", "mariadb"), anchored=True, wrapper=True, guard="-"),
    # the password after ``-p`` of a registry login (``docker login -u ci -p …``, Podman,
    # Buildah, nerdctl, ``helm registry login``, ``az login``) or of ``sshpass``, and after
    # redis-cli's ``-a`` or ``--pass``; ``docker run -p 8080:80`` and ``ssh -p 22`` are other flags
    Rule("login_flag", "secret", lazy(
        _COMMAND_START + "(?:" + "|".join(
            rf"(?:{command})(?=[ \t]){_on(256)}[ \t](?:{flag})"
            for command, flag in _LOGIN_FLAGS) + r")[ \t]*"
        # a value that is a reference or already redacted is passed over for the command's
        # next flag (``ssh-keygen -p -P "$OLD" -N …``, ``-P … -N …``: the one read first
        # ended the search, and the new passphrase went out in clear)
        r"(?!['\"]?(?:\$|\[REDACTED:))"
        r"(?:'(?:pass:)?(?P<login_flag_q>[^'\n]{1,4096})'"
        r"|\"(?:pass:)?(?P<login_flag_d>[^\"\n]{1,4096})\""
        r"|(?P<login_flag>[^\s\"'`\\;|&<>()]{1,4096}))", re.ASCII),
        ("docker", "podman", "buildah", "nerdctl", "helm", "az", "sshpass", "redis-cli",
         "rabbitmqadmin", "openssl", "zip", "7z", "ldap", "sqlcmd", "bcp", "mongo", "ipmitool",
         "ssh-keygen", "mosquitto_", "influx", "twine", "poetry", "doctl"),
        anchored=True, wrapper=True, guard="-"),
    # the password a registry login, ``sudo -S``, ``gh auth login --with-token`` or ``passwd``
    # reads on its standard input (``--password-stdin``; ``echo … | sudo -S apt-get update``),
    # and the secret a store's command reads there to keep (``vercel env add NAME
    # production``, ``gcloud secrets versions add NAME --data-file=-``: it went out in
    # clear), given there by ``echo``/``printf`` through a pipe, a here-string or the first
    # line of a heredoc, as CI scripts and READMEs write it; ``cat pw.txt |`` and ``echo
    # "$CR_PAT" |`` name one (references stay)
    Rule("stdin_login", "secret", lazy(
        r"(?<![\w.-])(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+['\"]%s(?:\\n)?['\"])?"
        r"[ \t]+" + _QUOTED_OR_BARE.format(name="stdin_login_e", least=1)
        + r"[ \t]*\|[ \t]*(?:" + PIPED_INTO + ")"
        r"|(?:" + _STDIN_COMMAND + "|" + _STORE_COMMAND + "|" + _TOKEN_STDIN
        + r")[^\n]{0,256}?<<(?:<[ \t]*(?:" + _ANSI_C + "|"
        + _QUOTED_OR_BARE.format(name="stdin_login_s", least=6) + r")|-?[ \t]*['\"]?\w+['\"]?"
        r"[^\n]{0,256}+\r?\n[ \t]*(?P<stdin_login>[^\s]{6,4096}))"
        # typed at the terminal: the line after the command, alone on its line (a prompt's
        # ``$`` before it; after a pipe or ``<``, standard input is not the terminal)
        r"|(?m:^)[ \t]*(?:[$#>][ \t]*)?(?:sudo[ \t]+)?" + _KUBECTL + r"[^\n|;&`<>]{0,256}?"
        + _FROM_FILE_STDIN + r"[^\n|;&`<>]{0,256}?\r?\n[ \t]*(?!" + _NOT_TYPED + ")"
        r"(?P<stdin_login_n>[^\s]{6,4096})(?=[ \t]*(?:\r?\n|\Z))",
        re.ASCII), ("password-stdin", "vercel", "data-file", "secret", "sudo", "with-token",
                    "passwd"), wrapper=True),
    # a registry credential a package manager's ``config set KEY VALUE`` is given, a space
    # its separator (``npm config set //registry.example.com/:_authToken …``, yarn's
    # ``npmAuthToken``, ``_password``): CI scripts write it so, and it went out in clear
    Rule("config_set", "secret", lazy(
        r"(?<![\w.-])(?:npm|pnpm|yarn)(?:\.cmd|\.exe)?[ \t]+config(?:[ \t]+-[\w-]+)*"
        r"[ \t]+set(?:[ \t]+-[\w-]+)*[ \t]+[^\s=]{0,256}?(?i:_auth(?:token)?|_password"
        r"|npmauth(?:token|ident))[\"']?[ \t]+"
        + _QUOTED_OR_BARE.format(name="config_set", least=1), re.ASCII),
        ("config",), wrapper=True, guard=" "),
    # a secret a secret store's command is given to keep (``gh secret set NAME --body …``,
    # ``aws secretsmanager create-secret --secret-string …``, ``aws ssm put-parameter
    # --type SecureString --value …``, ``kubectl create secret … --from-literal=KEY=…``):
    # stored safely there, and sent to the model in clear from the command's line
    Rule("secret_set", "secret", lazy(
        r"(?<![\w.-])(?:gh[ \t]+secret[ \t]+set" + _on(256) + r"[ \t](?:--body|-b)"
        r"(?:[ \t]*=?[ \t]*)"
        r"|aws[ \t]+secretsmanager[ \t]+(?:create-secret|put-secret-value|update-secret)"
        + _on(512) + r"[ \t]--secret-string(?:[ \t]+|=)"
        r"|aws[ \t]+ssm[ \t]+put-parameter(?=" + _on(512) + r"SecureString)"
        + _on(512) + r"[ \t]--value(?:[ \t]+|=)"
        r"|kubectl[ \t]+create[ \t]+secret" + _on(512) + r"[ \t]--from-literal=[^\s=]{1,253}="
        r"|(?<![\w.-])netlify(?:\.cmd|\.exe)?[ \t]+env:set[ \t]+[^\s=\-][^\s=]{0,252}[ \t]+"
        r"|(?<![\w.-])doppler[ \t]+secrets[ \t]+set[ \t]+[A-Za-z_]\w{0,252}[ \t]+"
        r"|(?<![\w.-])az[ \t]+keyvault[ \t]+secret[ \t]+set" + _on(512) + r"[ \t]--value"
        r"(?:[ \t]+|=))"
        + _QUOTED_OR_BARE.format(name="secret_set", least=1), re.ASCII),
        ("secret", "ssm", "env:set"), wrapper=True),
    # the ``NAME=VALUE`` pairs a secret store keeps (``fly secrets set DB=…``, ``doppler
    # secrets set``) or a platform's config vars (``heroku config:set DB=…``, dokku's): a
    # name that says nothing (``DB``) left the value to no rule, and it went out in clear.
    # One span per value (:func:`store_values`), every pair of the command (on the lines a
    # ``\`` continues it to too)
    Rule("store_pairs", "secret", lazy(
        r"(?<![\w.-])(?:(?P<store_secrets>(?:fly|flyctl|doppler|supabase)(?:\.exe)?[ \t]+"
        r"secrets[ \t]+set|vault(?:\.exe)?[ \t]+kv[ \t]+(?:put|patch))"
        r"|(?:heroku|dokku)(?:\.cmd|\.exe)?[ \t]+config:(?:set|add)|firebase[ \t]+functions:"
        r"config:set|railway[ \t]+variables|eb[ \t]+setenv|kubectl[ \t]+set[ \t]+env"
        # a service's or container's environment: an app's settings, a container's ``-e``
        # pairs (the others of its line are its command's), a Cloud Run or function's
        # comma-separated list after its flag
        r"|az[ \t]+(?:webapp|functionapp)[ \t]+config[ \t]+appsettings[ \t]+set"
        r"|render[ \t]+env[ \t]+set|(?P<store_env>(?:docker|podman|nerdctl)(?:-compose"
        r"|[ \t]+compose)?(?:\.exe)?[ \t]+(?:container[ \t]+)?(?:run|create|exec)"
        r"|kubectl[ \t]+run)|(?P<store_list>gcloud(?:\.cmd)?[ \t]+(?:(?:alpha|beta)[ \t]+)?"
        r"(?:run|functions)[ \t]" + _on(512) + r"[ \t]--(?:set|update)-env-vars))"
        r"(?P<store_pairs>[ \t=]" + _ARGUMENTS + ")"
        # ``fly secrets import``'s lines on its standard input: a heredoc's, to its word's
        # line, or a piped echo's (its ``\n`` parting them)
        r"|(?:" + _FLY_IMPORT + r"[^\n<|;&]{0,256}|cat[ \t]+(?=<<[^\n|]{1,256}\|[ \t]*"
        + _FLY_IMPORT + r"))<<-?[ \t]*(?P<store_quote>['\"]?)(?P<store_word>\w+)(?P=store_quote)"
        r"[^\n]{0,256}\n(?P<store_lines>(?:(?![ \t]*(?P=store_word)[ \t]*(?:\r?\n|\Z))"
        r"[^\n]*+(?:\n|\Z)){0,1024}+)"
        r"|(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+(?P<store_piped>'[^'\n]{1,4096}'"
        r"|\"[^\"\n]{1,4096}\"|[^\s'\"|;&<>]{1,4096})[ \t]*\|[ \t]*" + _FLY_IMPORT, re.ASCII),
        ("secrets", "config:", "vault", "railway", "setenv", "kubectl", "appsettings", "env set",
         "docker", "podman", "nerdctl", "env-vars"), wrapper=True),
    # the password ``htpasswd -b`` takes after the file and the user (``-bc FILE USER
    # PASSWORD``; ``-nb USER PASSWORD`` prints the line), to the command's end: its flags
    # (``-B``, ``-C 10``, mosquitto_passwd's ``-H sha512-pbkdf2``) before them; without
    # ``-b`` it is asked for, and there is a file
    # exactly when ``-n`` is not given (``accepts`` reads the flags: ``-bc FILE USER`` with
    # the password left out gives none). Its arguments are parted as curl's are, by spaces
    # or a ``\`` ending the line (a Dockerfile's ``RUN htpasswd -bc FILE \`` puts the user
    # and password below). Mosquitto's ``mosquitto_passwd -b FILE USER PASSWORD`` alike
    Rule("htpasswd", "secret", lazy(
        r"(?<![\w.-])(?:htpasswd|mosquitto_passwd)(?:\.exe)?"
        r"(?P<htpasswd_flags>(?:" + _ARG_SEP
        + r"(?:-[A-Za-z]+|[0-9]+|sha512(?:-pbkdf2)?|argon2id)){1,8})"
        r"(?P<htpasswd_file>" + _HTPASSWD_ARG + ")?" + _HTPASSWD_ARG
        + _ARG_SEP + _QUOTED_OR_BARE.format(name="htpasswd", least=1) + _COMMAND_END,
        re.ASCII),
        ("htpasswd", "mosquitto_passwd"), anchored=True, wrapper=True, guard="-"),
    # the password of a ``USER:PASSWORD`` line chpasswd reads on its standard input, from
    # ``echo``/``printf`` through a pipe (chpasswd by its path too), a here-string (``RUN
    # echo 'root:…' | chpasswd``, as Dockerfiles write it; ``| sudo -S chpasswd`` too) or a
    # heredoc's first line;
    # ``-e`` takes a hash, a variable names one
    Rule("chpasswd", "secret", lazy(
        r"(?<![\w.-])(?:(?P<chpasswd_echo>(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+)"
        r"|chpasswd[ \t]*(?:<<<[ \t]*|" + _HEREDOC + r"[ \t]*\r?\n[ \t]*))" + _CHPASSWD_LINE
        + r"(?(chpasswd_echo)[ \t]*\|[ \t]*(?:" + _SUDO + r")?(?:/usr)?(?:/s?bin/)?"
        r"chpasswd(?![\w-]))", re.ASCII),
        ("chpasswd",), wrapper=True, guard=":"),
    # a base64 ``USER:PASSWORD`` a shell decodes (``echo YWRt… | base64 -d``, ``base64
    # --decode <<< …``), as a Basic header's login is written down to be checked: the
    # check decodes it (``basic``'s); it went out in clear
    Rule("b64_login", "secret", lazy(
        r"(?<![\w.-])(?:(?:echo|printf)(?:[ \t]+-[neE]+)*[ \t]+['\"]?(?P<b64_login_e>"
        + _BASE64_RUN + r")['\"]?[ \t]*\|[ \t]*base64" + _DECODE
        + r"|base64" + _DECODE + r"[ \t]*<<<[ \t]*['\"]?(?P<b64_login>" + _BASE64_RUN + "))",
        re.ASCII), ("base64",), wrapper=True, guard="4"),  # (base64's own 4)
    # the password of an Oracle login, ``USER/PASSWORD[@DB]``, given to its clients
    # (``sqlplus scott/…@orcl``, ``expdp``, SQL*Loader's ``userid=``, ``rman target``) or to
    # SQL*Plus's ``CONNECT``, or in a JDBC thin URL (``jdbc:oracle:thin:scott/…@db:1521/x``);
    # but for all but sqlplus and sqlldr a database must follow (prose says "connect the
    # frontend/backend"; the pre-test reads the ``@`` first), or for the export and import
    # tools (legacy ``exp``/``imp``, Data Pump's, rman, dgmgrl) a parameter or the command's
    # end (judged as prose's then: "impdp and/or"); tkprof's ``explain=USER/PASSWORD`` too;
    # ``sqlplus / as sysdba`` holds none
    Rule("oracle_login", "secret", lazy(
        r"(?<![\w.-])(?:(?:(?i:sqlplus|sqlldr)(?P<oracle_client>)"
        r"|(?i:expdp|impdp|exp|imp|rman|dgmgrl)(?P<oracle_tool>)|(?i:sqlcl|sql))(?:\.exe)?"
        r"(?:[ \t]+-[A-Za-z]+)*[ \t]+"
        r"(?:(?i:userid|target|auxiliary|catalog)[ \t]*=?[ \t]*)?|(?i:conn(?:ect)?)[ \t]+"
        r"|(?i:tkprof)[ \t][^\n|;&`]{0,512}?[ \t](?i:explain)=(?P<oracle_explain>)"
        r"|(?i:jdbc:oracle:(?:thin|oci8?)):)['\"]?[A-Za-z][\w$#]{0,127}/"
        r"(?:\"(?P<oracle_login_d>[^\"\n]{1,128})\"|(?P<oracle_login>[^\s/@'\"`;|&<>()]{1,128}))"
        r"(?(oracle_client)(?=[@\s'\"]|\Z)|(?(oracle_explain)(?=[\s'\"]|\Z)"
        r"|(?(oracle_tool)(?=@|" + _ORACLE_PARAMETER + "|" + _COMMAND_END + r")|(?=@))))",
        re.ASCII),
        ("sqlplus", "sqlldr", "@", "exp", "imp", "rman", "dgmgrl", "explain="), folded=True,
        wrapper=True, guard="/"),  # (sqlcl's and CONNECT's @DB)
    # a Wi-Fi network's passphrase given to NetworkManager (``nmcli dev wifi connect SSID
    # password …``, ``nmcli con modify … wifi-sec.psk …``) or to ``wpa_passphrase SSID …``
    # (alone, it reads the passphrase on standard input)
    Rule("wifi_psk", "secret", lazy(
        r"(?<![\w.-])(?:nmcli(?=[ \t])" + _on(256) + r"[ \t](?:password"
        r"|(?:wifi-sec|802-11-wireless-security)\.psk)|wpa_passphrase[ \t]+(?:'[^'\n]{1,64}'"
        r"|\"[^\"\n]{1,64}\"|[^\s'\"<>|;&]{1,64}))[ \t]+"
        + _QUOTED_OR_BARE.format(name="wifi_psk", least=1), re.ASCII),
        ("nmcli", "wpa_passphrase"), wrapper=True, guard=" "),
    # the password of curl's ``-u USER:PASSWORD`` (also glued, ``-uUSER:PASSWORD``, and
    # ``--user``, ``--proxy-user``/``-U``), HTTPie's and xh's ``-a``/``--auth`` and
    # jenkins-cli's ``-auth``; ``-u USER`` alone prompts for it
    Rule("user_flag", "secret", lazy(
        r"(?<![\w.-])(?:curl(?:\.exe)?(?=[ \t])" + _on(256) + r"[ \t](?:-[uU]|--(?:proxy-)?user)"
        r"|(?:https?|xhs?)(?:\.exe)?(?=[ \t])" + _on(256) + r"[ \t](?:-a|--auth)"
        r"|jenkins-cli(?:\.jar)?(?=[ \t])" + _on(256) + r"[ \t]-auth)"
        + _user_and_password("user_flag", ":"), re.ASCII),
        ("curl", "http", "xh", "jenkins-cli"), anchored=True, wrapper=True, guard="-"),
    # curl's cookies (``-b 'sessionid=…; csrftoken=…'``, ``--cookie``: where Chrome's "Copy
    # as cURL" puts them, past the ``-H`` lines a ``\`` continues), judged as a ``Cookie:``
    # header's value (a cookie jar's file name holds no ``=``). The arguments before the
    # flag are read whole, each once and at most 64 (:data:`_CURL_ARGS`): read a character
    # at a time up to 8 KB for a flag that was not there, every curl of a hostile line read
    # the line again (0.4 MB of ``curl -u ``: 14.9 s)
    Rule("curl_cookie", "cookie", lazy(
        r"(?<![\w.-])curl(?:\.exe)?" + _CURL_ARGS + r"(?:-b|--cookie)(?:[ \t]+|=)"
        + _QUOTED_OR_BARE.format(name="curl_cookie", least=3), re.ASCII),
        ("curl",), anchored=True, wrapper=True, guard="-"),
    # the password of lftp's ``-u USER,PASSWORD`` (and its script's ``open -u …``); ``-u
    # USER`` alone prompts for it
    Rule("lftp_user", "secret", lazy(
        r"(?<![\w.-])(?:lftp(?:\.exe)?" + _args_before(r"-u|--user")
        + r"(?:-u|--user)|open -u)"
        + _user_and_password("lftp_user", ","), re.ASCII),
        ("lftp", "open -u"), wrapper=True, guard=","),
    # the password of smbclient's (rpcclient's) ``-U USER%PASSWORD``
    Rule("smb_user", "secret", lazy(
        r"(?<![\w.-])(?:smb|rpc)client(?:\.exe)?(?=[ \t])" + _on(256) + r"[ \t](?:-U|--user)"
        + _user_and_password("smb_user", "%"), re.ASCII),
        ("smbclient", "rpcclient"), anchored=True, wrapper=True, guard="-"),
    # the password rabbitmqctl's ``add_user``, ``change_password`` or ``authenticate_user``
    # takes after the user, ending the command (its arguments parted as htpasswd's);
    # ``add_user USER`` alone reads it on standard input
    Rule("rabbitmqctl", "secret", lazy(
        r"(?<![\w.-])rabbitmqctl(?:\.bat)?(?=[ \t])" + _on(128)
        + r"[ \t](?:add_user|change_password|authenticate_user)" + _ARG_SEP
        + r"(?:'[^'\n]{1,4096}'|\"[^\"\n]{1,4096}\"|[^\s\"'`;|&<>()\\-][^\s;|&<>()]{0,4095}+)"
        + _ARG_SEP + _QUOTED_OR_BARE.format(name="rabbitmqctl", least=1) + _COMMAND_END,
        re.ASCII),
        ("rabbitmqctl",), anchored=True, wrapper=True),
    # Redis's AUTH command, ``AUTH [USER] PASSWORD`` ending its line: given to redis-cli
    # (``redis-cli -h cache AUTH …``) or typed in its session (``127.0.0.1:6379> AUTH
    # default …``); what stands before it on the line decides (:func:`redis_auth_lead`)
    # MIGRATE's ``AUTH PASSWORD`` or ``AUTH2 USER PASSWORD`` (the target's login) may have
    # its ``KEYS …`` after it, HELLO's AUTH its ``SETNAME …``
    Rule("redis_cli_auth", "secret", lazy(
        r"(?<![\w.-])(?i:auth)2?[ \t]+(?:[\w.@-]{1,64}[ \t]+)?"
        + _QUOTED_OR_BARE.format(name="redis_cli_auth", least=1)
        + r"(?:" + _COMMAND_END + r"|(?=[ \t]+(?i:keys|setname)[ \t]))", re.ASCII),
        ("auth",), folded=True, anchored=True, wrapper=True),
)

#: what may stand before a Redis AUTH on its line: redis-cli and its arguments (after
#: ``docker exec … `` too), or its session's prompt (``127.0.0.1:6379>``, ``redis>``,
#: ``127.0.0.1:6379[1]>``), there after ``HELLO 3`` too (``HELLO 3 AUTH USER PASSWORD``);
#: ``HELLO 3`` or ``MIGRATE``'s arguments starting the line, a prompt before them or not
#: (each names the Redis command whose login it is: went out in clear, the prompt left out)
_REDIS_LEAD: Final = lazy(r"[^\n|;&`]{0,256}?(?<![\w.-])redis-cli(?:\.exe)?[ \t][^\n|;&`]{0,256}"
                          r"|[ \t]*[^\s>]{1,64}>[ \t]*(?:(?i:hello)[ \t]+[23][ \t]+)?"
                          r"|[ \t]*(?:[^\s>]{1,64}>[ \t]*)?(?:HELLO[ \t]+[23][ \t]+"
                          r"|(?i:migrate)[ \t][^\n|;&`]{0,512}[ \t])", re.ASCII)


#: the most :data:`_REDIS_LEAD` spans before an AUTH (its runs, an indent aside, are
#: bounded: 256, 64, 512)
_LEAD_MOST: Final = 1024


def redis_auth_lead(match: re.Match[str]) -> str:
    """What leads a ``redis_cli_auth`` match on its line: ``"client"`` (redis-cli or its
    prompt: the password is data), ``"bare"`` (``AUTH`` in capitals starting the line, as a
    session pasted without its prompts writes it: judged as prose, since a log says "AUTH
    failed"), else ``""`` (prose: "basic auth here"). Read back :data:`_LEAD_MOST` at
    most, since every ``AUTH a KEYS`` of a long line is a match: a line starting further
    back holds no lead, and its AUTH is bare only after blanks alone."""
    text, at = match.string, match.start()
    line = text.rfind("\n", max(0, at - _LEAD_MOST), at) + 1
    if line == 0 and at > _LEAD_MOST:  # the line starts further back than any lead
        if text[at - _LEAD_MOST:at].strip():
            return ""
        line = text.rfind("\n", 0, at) + 1  # blanks that far: rare, and read once
    if _REDIS_LEAD.fullmatch(text, line, at) is not None:
        return "client"
    return "bare" if not text[line:at].strip() and text.startswith("AUTH", at) else ""


def _pair(after: str, whole: bool = True) -> str:
    """One ``NAME=VALUE`` argument of a :data:`store_pairs` command where ``after`` holds
    (a flag, ``-a app``, is none): its value quoted or bare, or with ``whole`` the pair
    quoted whole (``--set "KEY=value"``, as Railway's docs write it)."""
    return (after + r"(?:[A-Za-z_][\w.-]{0,253}=(?:'(?P<q>[^'\n]{1,4096})'"
            r"|\"(?P<d>[^\"\n]{1,4096})\"|(?P<v>[^\s\"'`\\;|&<>()]{1,4096}))"
            + (r"|'[A-Za-z_][\w.-]{0,253}=(?P<pq>[^'\n]{1,4096})'"
               r"|\"[A-Za-z_][\w.-]{0,253}=(?P<pd>[^\"\n]{1,4096})\"" if whole else "") + ")")


#: a pair after a space, one after a container's ``-e``/``--env`` (or glued to ``-e``,
#: ``-eDB=…``, as any shorthand flag may be: it went out in clear), and one of a comma's
#: list (``--set-env-vars A=1,B=2``; its value ends at a comma)
_PAIR: Final = lazy(_pair(r"(?<![^ \t\n])"), re.ASCII)
_ENV_PAIR: Final = lazy(_pair(r"(?:(?<=[ \t]-e)|(?<=[ \t]-e[ \t])|(?<=[ \t]--env[ \t=]))"),
                        re.ASCII)
_LISTED_PAIR: Final = lazy(r"(?<![^\s,=\"'])[A-Za-z_][\w.-]{0,253}=(?P<v>[^\s,\"'`\\;|&<>()]"
                           r"{1,4096})", re.ASCII)


#: gcloud's list with a delimiter of its own (``^:^A=1:B=2``, ``^##^…``: how it takes
#: values holding commas), quoted or bare: the delimiter, and the pairs it parts
_DELIMITED: Final = lazy(r"(?<![^\s=\"'])\^(?P<by>[^\s^\"']{1,16})\^"
                         r"(?P<list>[^\s\"'`;|&<>]{1,4096})", re.ASCII)
#: one of those pairs' name, its ``=`` ending it
_LISTED_NAME: Final = lazy(r"[A-Za-z_][\w.-]{0,253}=", re.ASCII)


def _delimited(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where each value of a gcloud list with its own delimiter between ``start`` and
    ``end`` stands (``^:^A=1:DB=…``): read as a comma's list, none of its pairs was one."""
    spans = []
    for listed in _DELIMITED.finditer(text, start, end):
        at, by = listed.start("list"), listed.group("by")
        for part in listed.group("list").split(by):
            name = _LISTED_NAME.match(part)
            if name is not None and name.end() < len(part):
                spans.append((at + name.end(), at + len(part)))
            at += len(part) + len(by)
    return spans


#: a pair of ``fly secrets import``'s lines: at a line's start (an ``export`` before it),
#: or after an echo's quote or ``\n`` (the quote around its lines is no pair's)
_LINE_PAIR: Final = lazy(_pair(r"(?:(?<![^\s'\"])|(?<=\\n))(?:export[ \t]+)?", whole=False),
                         re.ASCII)
#: the groups of a ``store_pairs`` match that hold its pairs
_READ: Final = ("store_pairs", "store_lines", "store_piped")


def store_values(match: re.Match[str]) -> list[tuple[int, int]]:
    """The values to redact of a ``store_pairs`` match: every value a secret store keeps
    but a reference (``$DB_URL``) or a mask; a config var's when it reads as random
    (``setting_is_secret``: ``RAILS_ENV=production``, ``WEB_CONCURRENCY=2`` and
    ``TZ=Europe/Berlin`` are settings, kept)."""
    text = match.string
    secrets = match.group("store_secrets") is not None
    read = next(name for name in _READ if match.group(name) is not None)
    secrets = secrets or read != "store_pairs"
    pairs = _LISTED_PAIR if match.group("store_list") is not None \
        else _ENV_PAIR if match.group("store_env") is not None \
        else _PAIR if read == "store_pairs" else _LINE_PAIR
    places = [pair.span(pair.lastgroup or 0) for pair in pairs.finditer(text, *match.span(read))]
    if pairs is _LISTED_PAIR and text.find("^", *match.span(read)) != -1:
        places = sorted({*places, *_delimited(text, *match.span(read))})
    spans = []
    for at, until in places:
        value = text[at:until]
        if value.startswith("[REDACTED:") or is_reference(value) or "://" in value:
            continue  # (a URL's password is its own rule's)
        if (secrets and any(c.isalnum() for c in value)) or setting_is_secret(value):
            spans.append((at, until))
    return spans


#: ``netlify env:set``'s head, and its flag marking a value secret (``--secret``)
_NETLIFY: Final = lazy(r"(?:npx[ \t]+)?netlify")
_SECRET_FLAG: Final = lazy(r"[ \t]--secret(?![\w-])")
#: how far past its value a ``netlify env:set`` line is read for that flag
_FLAG_READ: Final = 256


def a_setting(match: re.Match[str], end: int) -> bool:
    """Whether a ``secret_set`` match (its value ending at ``end``) is ``netlify env:set
    NAME VALUE`` without ``--secret``: a build's environment variable, a setting as a
    Heroku config var is, judged as one (``NODE_VERSION 18`` was redacted)."""
    text = match.string
    if _NETLIFY.match(text, match.start()) is None:
        return False
    line_end = text.find("\n", end, end + _FLAG_READ)
    return _SECRET_FLAG.search(text, end, end + _FLAG_READ if line_end == -1 else line_end) \
        is None


#: what says a ``stdin_login`` match's command reads standard input
_READS_STDIN: Final = lazy(r"--password-stdin|" + _SUDO_STDIN + "|" + _TOKEN_STDIN + "|"
                           + _DATA_FILE_STDIN + "|"
                           + _FROM_FILE_STDIN + r"|(?<![\w.-])(?:" + _VERCEL + "|"
                           + _DOCKER_SECRET + ")",
                           re.ASCII)


def reads_stdin(match: re.Match[str]) -> bool:
    """Whether the command of a ``stdin_login`` match reads its secret on standard input:
    ``--password-stdin`` or ``--data-file=-`` on the command's line (before or after a
    heredoc's operator), or the command is one that always does (``vercel env add``). A pipe's
    match holds its command's whole (read no further: every ``echo … |`` of a long line
    read the line on to its end, a square of it); a heredoc's line is read so far."""
    if any(match.group(group) is not None for group in _PIPED):
        return True
    text, at = match.string, match.start()
    line_end = text.find("\n", at, at + _LINE_READ)
    return _READS_STDIN.search(text, at, at + _LINE_READ if line_end == -1 else line_end) \
        is not None


#: the groups of a ``stdin_login`` match's value given through a pipe
_PIPED: Final = ("stdin_login_e", "stdin_login_e_q", "stdin_login_e_d")
#: how far a heredoc's command line is read for its flag (its own, and the heredoc's word)
_LINE_READ: Final = 1024
