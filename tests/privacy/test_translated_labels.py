"""An interface's translation files name a credential's field in each language
(``fr.json``'s ``"password": "Mot de passe"``, ``de.yml``'s ``password: Passwort``): the
value is the key's own name, translated, as ``"Access token"`` or ``"Password"`` is in
English, which stayed. Quoted, a French, Spanish, Portuguese, Dutch, Russian or German
label was redacted as the password, and a pin or claim quoting the file was refused as
holding a credential. A label stays when its words are letters alone and one of them (or
a run of them) is a credential's name in another language; a password holding such a
word beside digits or symbols, and a passphrase, still go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

LABELS: list[str] = [
    '{"password": "Mot de passe"}',
    '"password": "Mot de passe oublié ?",',
    '"password": "Contraseña"',
    "password: Contraseña",
    '"password": "Senha"',
    '"password": "Wachtwoord"',
    '"password": "Пароль"',
    '"password": "Kennwort"',
    '"password": "Lösenord"',
    '"password": "Mật khẩu"',
    '"password": "Parola"',
    '"token": "Jeton"',
    '"secret": "Geheimnis"',
    '"api_key": "Clé API"',
    # scripts whose letters take combining marks (Thai's vowels, Devanagari's, Bengali's,
    # Tamil's), and a name joined to another by a hyphen
    '"password": "รหัสผ่าน"',
    '"password": "पासवर्ड"',
    '"password": "पासवर्ड भूल गए?"',
    '"password": "পাসওয়ার্ড"',
    '"password": "கடவுச்சொல்"',
    '"api_key": "API-Schlüssel"',
]

#: (text, what it becomes): a password with such a word in it is still one
STILL_SECRETS: list[tuple[str, str]] = [
    ('password = "correct horse battery staple"', 'password = "[REDACTED:secret]"'),
    ('"password": "Passwort123!"', '"password": "[REDACTED:secret]"'),
    ('"password": "mot de passe 9xK2!"', '"password": "[REDACTED:secret]"'),
    ('"password": "Parola-Xk9vTq2m"', '"password": "[REDACTED:secret]"'),
    ('"password": "पासवर्ड९८७६५४"', '"password": "[REDACTED:secret]"'),
]


@pytest.mark.parametrize("text", LABELS)
def test_a_translated_label_stays(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize(("text", "kept"), STILL_SECRETS)
def test_a_password_holding_a_label_s_word_still_goes(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


def test_a_claim_quoting_a_translation_file_is_stored(tmp_path: Path) -> None:
    """The real CLI refused it, exit 2, as holding a credential."""
    project = tmp_path / "project"
    project.mkdir()
    text = 'fr.json holds {"password": "Mot de passe", "login": "Connexion"}'
    done = waymarks("--home", str(tmp_path / "home"), "--cwd", str(project), "memory", "add",
                    "--json", "--", text, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["code"] != "credential"
