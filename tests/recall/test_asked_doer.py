"""A question asking what a thing does ("what does the mailer send through?") is not
answered by a claim in which that thing is what is done to or through: "Password resets
are handled by the auth service and send mail through the mailer." was recalled beside
"The mailer sends through Amazon SES in eu-west-1." (issue 20's everyday store)."""

from __future__ import annotations

from tests.recall.everyday_store import Everyday
from waymarks.recall.analysis import fold
from waymarks.recall.asked_agent import doer_asked, says_done_to_it


def test_what_the_mailer_sends_through_is_its_own_sending(everyday: Everyday) -> None:
    question = "what does the mailer send through?"
    assert everyday.asked([question]) == {question: [
        "The mailer sends through Amazon SES in eu-west-1."]}


def test_the_doer_read_from_a_question() -> None:
    assert doer_asked("what does the mailer send through?") == ("w:send", "w:mailer")
    assert doer_asked(fold("What does the API call?")) == ("w:call", "w:api")
    assert doer_asked("what does billing use?") == ()  # "use" says nothing
    assert doer_asked("who owns the mailer?") == ()
    assert doer_asked("what port does the mailer listen on?") == ()


def test_a_claim_doing_it_to_the_thing_is_told_from_the_thing_doing_it() -> None:
    asked = doer_asked("what does the mailer send through?")
    assert says_done_to_it(asked, "Password resets send mail through the mailer.")
    assert not says_done_to_it(asked, "The mailer sends through Amazon SES.")
    # a passive names the doer after the verb: still what the mailer does
    assert not says_done_to_it(asked, "Receipts are sent through SES, send by the mailer.")
    assert not says_done_to_it(asked, "The mailer relays to Postfix.")  # no such verb
