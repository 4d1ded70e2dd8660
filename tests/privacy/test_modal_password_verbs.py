"""A password stated with a modal verb or "used to be" ("the password used to be hunter22",
"the password should be hunter22", "the root password must be toor."): none of these
was a verb of the prose rule, so each went out of redact() unchanged (0 spans) at
ec5c421f and after 96eaf6b2, though "will be" and "has been" were read. The rules and
policies said with the same verbs stay."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

#: (text, its credential): the credential alone is redacted
STATED = [("the password used to be hunter22", "hunter22"),
          ("the password should be hunter22", "hunter22"),
          ("the wifi password would be hunter22 if you ask", "hunter22"),
          ("the root password must be toor.", "toor"),
          ("the api key should be a8f3kd93jf02kdx7", "a8f3kd93jf02kdx7"),
          ("the password used to be Spring2025.", "Spring2025")]

test_each_password_goes, test_each_policy_stays = stated_tests(STATED, [
    "the password must be 12 characters", "the password should be rotated monthly",
    "the password must be at least 12 chars", "the password should be hashed with argon2id",
    "the password used to be stored in plain text", "the token should be refreshed hourly",
    "the key must be 256-bit", "the secret should be base64",
    "the password must be 8-64 characters", "the password should be unique",
    "the password would be reset by IT", "the password must be changed every 90 days",
    "The PIN must be 4 digits", "the password must be sha256 hashed",
    "the passcode must be 6 digits", "the password should be 16+ chars",
    "the password must be alphanumeric", "the password should be in 1Password",
    "the password must be MFA-protected",
])
