"""The same sentence with its action denied, or no longer denied ("The CLI supports
Windows." / "The CLI does not support Windows.", "导入器校验邮箱。" / "导入器不校验邮箱。"):
neither states a value, so no signature compared them, and both were written, both sent
to the model as in effect. :func:`opposite_norms` gives the normalized texts that say the
other; the write check looks them up by their exact text (an indexed lookup), so a claim
is refused only beside its very negation. Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.claim_denials import HAN_NO_ACTION
from waymarks.core.lazy_re import lazy

#: an English action denied: the subject, the negation, the verb, the rest
_DENIED: Final = lazy(
    r"^(\S.*?) (does not|doesn't|doesnt|do not|don't|dont|never|no longer|cannot|can't"
    r"|can not) ([a-z]+)((?: .*)?)$")
#: an instruction of no subject denied ("never run the linters …", "don't squash …"): the
#: verb and the rest
_INSTRUCTION_DENIED: Final = lazy(r"^(?:never|don't|dont|do not) ([a-z][a-z-]*)((?: .*)?)$")
_INSTRUCTION_DENIALS: Final = ("never", "don't", "do not")
#: "always" before the verb: the affirmative "never" denies ("The bot always retries …" /
#: "… never retries …")
_ALWAYS: Final = "always "
#: the negations an English action is denied with, by the verb's form after them
_THIRD_PERSON_DENIALS: Final = ("does not", "doesn't")
_PLAIN_DENIALS: Final = ("do not", "don't")
_ADVERB_DENIALS: Final = ("never", "no longer")
_CAN_DENIALS: Final = ("cannot", "can't", "can not")
#: how many words the subject of an affirmative claim may have (its verb is tried after
#: each of them: the lookup stays small)
MAX_SUBJECT_WORDS: Final = 8
#: a Chinese action denied (a copula's 不是 or a modal's 不能 denies a word, not an action)
_HAN_DENIED: Final = lazy(
    rf"^([^不没从]+?)(从不|不再|没有|不){HAN_NO_ACTION}([\u4e00-\u9fff].*)$")
_HAN_DENIALS: Final = ("不", "从不", "不再", "没有")
MAX_HAN_SUBJECT: Final = 12
_HAN_ALWAYS: Final = ("总是要", "总是", "始终", "一直")
_HAN_NEVER: Final = ("从来不", "从不")
_SIBILANT_ENDS: Final = ("shes", "ches", "sses", "xes", "zes")


def _base(verb: str) -> str | None:
    """The plain form of a verb in the third person ("supports" support, "retries"
    retry, "pushes" push, "has" have), or ``None`` when it is none."""
    if verb == "has":
        return "have"
    if len(verb) > 4 and verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(_SIBILANT_ENDS):
        return verb[:-2]
    if len(verb) > 2 and verb.endswith("s") and not verb.endswith(("ss", "us", "is")):
        return verb[:-1]
    return None


def _third(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("sh", "ch", "ss", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


#: the words :func:`opposite_norms` adds or takes out (its denials, "always", "can")
_HAN: Final = lazy("[\u4e00-\u9fff]")
_DENIAL_WORDS: Final = frozenset(
    "does not doesn't doesnt do don't dont never no longer cannot can't can always".split())


def kept_words(norm: str) -> frozenset[str] | None:
    """The words of ``norm`` every text of :func:`opposite_norms` keeps but its verb's
    (its denials and "always" left out): an opposite's differ from these by one word at
    most, each way. ``None`` for a Chinese claim (no words apart)."""
    if _HAN.search(norm) is not None:
        return None
    return frozenset(norm.split(" ")) - _DENIAL_WORDS


def opposite_norms(norm: str) -> tuple[str, ...]:
    """The normalized texts that deny the action ``norm`` states, or state the action it
    denies (none for a claim of neither). An instruction of no subject is one too ("Always
    run the linters before commit." / "Never run …", "Run …" / "Don't run …"), and
    "always" is the affirmative of "never" ("The bot always retries …" / "… never …")."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in norm):
        return _han_opposites(norm)
    instruction = _INSTRUCTION_DENIED.match(norm)
    if instruction is not None:
        verb, rest = instruction.groups()
        return (f"{verb}{rest}", f"{_ALWAYS}{verb}{rest}")
    found = _DENIED.match(norm)
    if found is not None:
        subject, negation, verb, rest = found.groups()
        if negation in _CAN_DENIALS:
            return (f"{subject} can {verb}{rest}",)
        forms = {_third(verb)} if negation in _THIRD_PERSON_DENIALS else {verb}
        if negation in _ADVERB_DENIALS and _base(verb) is None:  # "never retry", plural
            forms.add(_third(verb))
        always = {_ALWAYS + form for form in forms} if negation == "never" else set()
        return tuple(f"{subject} {form}{rest}" for form in sorted(forms | always))
    norm = norm.removeprefix(_ALWAYS).replace(" " + _ALWAYS, " ", 1)
    words = norm.split(" ")
    out: list[str] = [f"{denial} {norm}" for denial in _INSTRUCTION_DENIALS
                      if words[0].replace("-", "").isalpha()]
    for at in range(1, min(len(words), MAX_SUBJECT_WORDS + 1)):
        subject, verb, rest = " ".join(words[:at]), words[at], words[at + 1:]
        tail = "".join(" " + word for word in rest)
        if verb == "can" and rest:
            out.extend(f"{subject} {denial}{tail}" for denial in _CAN_DENIALS)
            continue
        base = _base(verb)
        if base is not None:
            out.extend(f"{subject} {denial} {base}{tail}" for denial in _THIRD_PERSON_DENIALS)
            out.extend(f"{subject} {denial} {verb}{tail}" for denial in _ADVERB_DENIALS)
        elif verb.isalpha():
            out.extend(f"{subject} {denial} {verb}{tail}"
                       for denial in (*_PLAIN_DENIALS, *_ADVERB_DENIALS))
    return tuple(out)


def _han_opposites(norm: str) -> tuple[str, ...]:
    # "always" (总是, 总是要, 始终, 一直) is the affirmative of 从不, "never", as in English
    always = next((word for word in _HAN_ALWAYS if word in norm), None)
    if always is not None:
        return tuple(norm.replace(always, never, 1) for never in _HAN_NEVER)
    nevers = tuple(norm.replace(never, word, 1) for never in _HAN_NEVER if never in norm
                   for word in _HAN_ALWAYS)
    found = _HAN_DENIED.match(norm)
    if found is not None:
        return (found.group(1) + found.group(3), *nevers)
    if nevers:
        return nevers
    return tuple(norm[:at] + denial + norm[at:]
                 for at in range(1, min(len(norm), MAX_HAN_SUBJECT + 1))
                 if "\u4e00" <= norm[at] <= "\u9fff" and norm[at - 1] not in "不没从再"
                 for denial in _HAN_DENIALS)
