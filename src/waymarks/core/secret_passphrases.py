"""The credential rule of a passphrase stated after its label: ``passphrase: correct horse
battery staple`` (a GPG key's, an SSH key's, a wallet's, a Wi-Fi network's). A
passphrase is words with spaces, so the assignment rule, which reads an unquoted value
to its first space, took ``correct`` alone, judged it a word and left the phrase in clear;
one in typographic quotes (``“correct horse battery staple”``) lost its first word only,
and one in backticks none. Stated in a sentence, ``the passphrase is correct horse battery
staple``, it went out whole: this rule read only after ``:`` or ``=``, and the prose rule,
which reads one word after ``is``, judged ``correct`` a word.

The value after ``passphrase:``, ``passphrase =`` or ``passphrase is`` (``was``; ``pass
phrase``, ``pass-phrase``) is
read quote-delimited (``“…”``, ``‘…’``, a backticked one with spaces; ASCII quotes are the
assignment rule's) or, unquoted, to its line's end. It is a passphrase when it opens with
:data:`_PHRASE_MIN` words of a passphrase's kind (:func:`_phrase_words`: letters, no word of
a sentence's, :data:`_PROSE_WORDS`, none ending in ``-ly`` or ``-ed``), or opens with a word
that reads as random (``Tr0ub4dor&3 …``). What stays: a note about it
(``passphrase: see the vault``, ``passphrase: stored in 1Password``, ``passphrase: none``,
``The key has no passphrase: it is used by CI``), a reference or template, one or two
words (judged by the assignment rule as before). Part of the rule table of
:mod:`waymarks.core.secret_rules`.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule
from waymarks.core.secret_values import is_reference, prose_value_is_secret

#: "for the deploy key", "of the backup vault", "on the NAS": up to five words between the
#: noun and its separator (the prose rule's qualifier): "passphrase for the deploy key: …"
#: went out whole, the rule wanting the separator right after the noun


def _qualifier(name: str) -> str:
    """The qualifier, its end marked by an empty group ``name`` when it stands."""
    return r"(?:[ \t]+(?:for|of|on)(?:[ \t]+[\w.@-]{1,64}){1,5}?(?P<" + name + r">))?"


#: (after "is" or "was", "now" or "still": "the wifi password is now amber falcon orbit
#: lagoon" went out in clear while "… is amber falcon orbit lagoon" did not)
_SEPARATOR: Final = (r"(?:[ \t]*[:=]|[ \t]+(?:is|was)(?:[ \t]+(?:now|still)(?![A-Za-z]))?"
                     r"(?:[ \t]*:)?)[ \t]*")
#: ASCII quotes around words with spaces (one word quoted is the prose rule's): after
#: "is", no other rule read past the first space ('… passphrase is "four words here 42"')


def _ascii_quoted(double: str, single: str) -> str:
    """Words with spaces in ASCII quotes, groups ``double`` and ``single``."""
    return (r"\"(?=[^\"\n]{1,256}\")(?P<" + double + r">[^\"\n \t]+(?:[ \t]+[^\"\n \t]+)+)\""
            r"|'(?=[^'\n]{1,256}')(?P<" + single + r">[^'\n \t]+(?:[ \t]+[^'\n \t]+)+)'")


PASSPHRASE_LINE: Final = Rule("passphrase_line", "secret", lazy(
    r"(?<![A-Za-z])pass[ \t_-]?phrase(?![A-Za-z])" + _qualifier("phrase_for") + _SEPARATOR + r"(?:"
    r"\u201c(?P<phrase_dq>[^\u201d\n]{1,256})\u201d"
    r"|\u2018(?P<phrase_sq>[^\u2019\n]{1,256})\u2019"
    r"|`(?P<phrase_bq>[^`\n]{1,256})`|" + _ascii_quoted("phrase_adq", "phrase_asq")
    # unquoted: to its line's end (256 characters at most: a longer line is no phrase)
    + r"|(?P<passphrase_line>[^\s\"'`\u201c\u2018][^\n]{0,255}?)[ \t]*(?=\r?\n|\Z))"
    # a password's noun: words quoted with spaces, or 4-8 plain words that are the whole
    # clause ("the wifi password is amber falcon orbit lagoon", :func:`passphrase_is_secret`)
    r"|(?<![A-Za-z])(?:passwor[dt]|passwd|passcode)s?(?![A-Za-z])"
    + _qualifier("phrase_pw_for") + _SEPARATOR
    + r"(?:" + _ascii_quoted("phrase_pw_dq", "phrase_pw_sq")
    + r"|(?P<phrase_pw_words>[A-Za-z][A-Za-z0-9-]{0,31}+(?:[ \t]+[A-Za-z0-9][A-Za-z0-9-]{0,31}+)"
    r"{3,7}+)(?=[ \t]*(?:[.,;!?]|\r?\n|\Z)))",
    re.ASCII | re.IGNORECASE), ("pass",), folded=True, anchored=True, wrapper=True)

#: how many passphrase words must open an unquoted value (``ask Alice``, two, stays)
_PHRASE_MIN: Final = 3
#: how many plain words after a password's noun, all a passphrase's, make the clause one
_PLAIN_MIN: Final = 4
#: words of a sentence about a passphrase, not of one (articles, pronouns, prepositions,
#: the verbs and words a note says of a secret)
_PROSE_WORDS: Final = frozenset("""
a an the this that these those it its is are was were be been being has have had do does
did not no none nil null empty unset blank same as in on at of for from to by with without
into via per and or but if then than see ask use used uses stored kept lives live set
saved held managed generated rotated required optional needed unknown changed provided
found check read get got given sent shared here there where which what who whom whose
our your their my his her we you they i me us them one ones any some all each every
other another default usual usually only also still now just please should must may
can will would could same above below under over after before when while tbd todo n/a
""".split())
#: words a note says of a secret, its store or its rules (``passphrase: Release Signing
#: Key``, ``Bitwarden item release key``, ``twelve characters minimum length``, ``office
#: guest network password``, ``ops team rotates it quarterly``: each was refused by the CLI
#: as a passphrase): like a sentence's, they end a passphrase's opening words
_NOTE_WORDS: Final = frozenset("""
password passwords passphrase passphrases passcode pin key keys secret secrets token
vault vaults keychain keyring item entry entries team network wifi length characters
chars minimum maximum min max random words rotate rotates expires
""".split())
#: words of a clause about a password, not of one: when, how often, compared with what
#: ("The password was wrong three times today", "… plaintext until last month"), and what
#: a message quoted after "is" says of one ('"Invalid username or password"'): each was
#: redacted as a passphrase of plain or quoted words
_CLAUSE_WORDS: Final = frozenset("""
until since across between through during among about against within except because
although though unless too very again twice today yesterday tomorrow tonight last next
week weeks month months year years day days time times wrong different invalid
incorrect credentials username usernames user login error format least short weak
""".split())
_WORD: Final = lazy(r"[A-Za-z]+(?:-[A-Za-z]+)*", re.ASCII)
#: a clause opening with a verb of setting or asking: a step's heading before the colon
_QUALIFIED_HEADING: Final = lazy(r"(?:\A|[.;!?\n][ \t]*)(?:reset|change|rotate|set|update|enter"
                                 r"|type)[ \t][^.;!?\n]*\Z", re.ASCII | re.IGNORECASE)


def _phrase_words(words: list[str]) -> int:
    """How many of ``words`` open the value as a passphrase's words."""
    count = 0
    for word in words:
        bare = word.strip(".,;:!?")
        if _WORD.fullmatch(bare) is None or bare.lower() in _PROSE_WORDS \
                or bare.lower() in _NOTE_WORDS or bare.lower().endswith(("ly", "ed")):
            break
        count += 1
    return count


def passphrase_is_secret(match: re.Match[str]) -> bool:
    """Whether a ``passphrase_line`` match's value is a passphrase. After a password's
    noun, quoted words go when two open it as a passphrase's or one reads as random, plain
    words only when all of them (3 to 8, the whole clause) are a passphrase's."""
    value = match.group(match.lastgroup or 0)
    words = value.split()
    if not words or is_reference(words[0]) or any(mark in value for mark in "{}<>$%"):
        return False
    if (match.group("phrase_for") is not None or match.group("phrase_pw_for") is not None) \
            and _QUALIFIED_HEADING.search(match.string, max(0, match.start() - 64),
                                          match.start()) is not None:
        return False  # "Reset the passphrase for the admin account: …": a step's heading
    if match.lastgroup in ("phrase_pw_words", "phrase_pw_dq", "phrase_pw_sq", "phrase_adq",
                           "phrase_asq") and any(
            word.strip(".,;:!?()").lower() in _CLAUSE_WORDS | _NOTE_WORDS for word in words):
        return False  # a clause or a message about one ('"Invalid username or password"')
    if match.lastgroup == "phrase_pw_words":  # (a clause of prose holds a prose word, or
        # a verb's -ing: "the password is changing next week")
        return len(words) >= _PLAIN_MIN and all(
            word.isdigit() or (_phrase_words([word]) and not word.lower().endswith("ing"))
            for word in words)
    if match.lastgroup in ("phrase_pw_dq", "phrase_pw_sq", "phrase_adq", "phrase_asq"):
        # (two words quoted after "the password is" may name one as well: 'the password
        # is "correct horse"' stays; after a passphrase's noun two go, not "the usual one")
        return len(words) >= (_PHRASE_MIN if match.lastgroup.startswith("phrase_pw") else 2) \
            and (sum(_phrase_words([word]) for word in words) >= 2
                 or any(prose_value_is_secret(word, quoted=False, pin=False) for word in words))
    if match.lastgroup in ("phrase_dq", "phrase_sq") and len(words) >= 2:
        return True  # quoted whole: a phrase cannot be told from prose (as after ``"``)
    if len(words) >= _PHRASE_MIN and _phrase_words(words) >= _PHRASE_MIN:
        return True
    # (its first word random itself: ``Tr0ub4dor&3 horse``; not ``1Password``, a name)
    return prose_value_is_secret(words[0].rstrip(".,;:!?"), quoted=False, pin=False)
