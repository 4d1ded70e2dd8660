"""The environment a platform's deploy command gives a service or container, pair by
pair: ``gcloud run deploy --set-env-vars DB=…`` (and ``--update-env-vars``, a comma's
list), ``az webapp config appsettings set --settings DB=…``, ``docker run -e DB=…``
(``--env``) and ``render env set DB=…``. A name that says nothing of a credential left the
value to no rule: it went to the model in clear, and a pin holding it was stored. Each
value is judged as a platform's config var is (``store_pairs``: what reads as random is a
secret; ``TZ=Europe/Berlin``, ``PORT=8080``, ``NODE_ENV=production`` stay)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"
R = "[REDACTED:secret]"

#: (text, what stays of it)
CASES: list[tuple[str, str]] = [
    (f"gcloud run deploy api --image gcr.io/p/api --set-env-vars DB={PW},TZ=Europe/Berlin",
     f"gcloud run deploy api --image gcr.io/p/api --set-env-vars DB={R},TZ=Europe/Berlin"),
    (f"gcloud run deploy api --set-env-vars=DB={PW}",
     f"gcloud run deploy api --set-env-vars=DB={R}"),
    (f'gcloud run services update api --update-env-vars "PORT=8080,DB={PW}"',
     f'gcloud run services update api --update-env-vars "PORT=8080,DB={R}"'),
    (f"gcloud functions deploy f \\\n  --set-env-vars DB={PW}",
     f"gcloud functions deploy f \\\n  --set-env-vars DB={R}"),
    (f"az webapp config appsettings set -g rg -n app --settings DB={PW} PORT=8080",
     f"az webapp config appsettings set -g rg -n app --settings DB={R} PORT=8080"),
    (f"docker run -e DB={PW} -e TZ=Europe/Berlin -p 8080:80 nginx",
     f"docker run -e DB={R} -e TZ=Europe/Berlin -p 8080:80 nginx"),
    (f"docker run --rm --env DB='{PW}' nginx", f"docker run --rm --env DB='{R}' nginx"),
    (f"podman run --env=DB={PW} nginx", f"podman run --env=DB={R} nginx"),
    (f"docker create -e DB={PW} nginx", f"docker create -e DB={R} nginx"),
    (f"render env set DB={PW}", f"render env set DB={R}"),
    # Compose's and kubectl's containers, and a running one's command
    (f"docker compose run -e DB={PW} web", f"docker compose run -e DB={R} web"),
    (f"docker-compose run --rm -e DB={PW} web", f"docker-compose run --rm -e DB={R} web"),
    (f"docker exec -e DB={PW} web sh", f"docker exec -e DB={R} web sh"),
    (f'kubectl run web --image=nginx --env "DB={PW}"',
     f'kubectl run web --image=nginx --env "DB={R}"'),
]

#: settings, references and what is no environment entry
UNCHANGED: list[str] = [
    "gcloud run deploy api --set-env-vars TZ=Europe/Berlin,PORT=8080,NODE_ENV=production",
    "gcloud run deploy api --set-secrets DB=db-pass:latest",
    "gcloud run deploy api --update-env-vars DB=$DB_PASSWORD",
    "az webapp config appsettings set -g rg -n app --settings WEBSITES_PORT=8080",
    "docker run -e NODE_ENV=production -e PORT=8080 -p 8080:80 nginx",
    'docker run -e DB="$DB" nginx',
    "docker run --label build=7f3a9c2b4e1d8f6a0b5c3e2d1f4a6b8c nginx",
    "render env set NODE_ENV=production",
    "kubectl run web --image=nginx --env=TZ=Europe/Berlin --labels=app=web",
    "docker compose up -d",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_random_value_of_a_platforms_environment_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_settings_and_references_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f"deploy: docker run -e DB={PW} web", PW)
