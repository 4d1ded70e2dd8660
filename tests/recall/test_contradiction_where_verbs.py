"""A verb of where a thing is, before its preposition, is no word of the subject
(``core/claim_change_verbs.py``, ``WHERE_IS``): "nginx conf is under /opt/nginx/conf now"
was written beside "nginx conf lives in /etc/nginx/sites-enabled", "… are kept in
/opt/ledger/config." beside "… are located in /etc/ledger." (lives, located and kept, the
retention, were subject terms; pairs of ``benchmarks/conflict_pairs_registers.json``). The
pairs after the first two were written after the change, in shapes the set lacks."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("nginx conf lives in /etc/nginx/sites-enabled", "nginx conf is under /opt/nginx/conf now",
     True),
    ("Ledger's configuration files are located in /etc/ledger.",
     "The configuration files of Ledger are kept in /opt/ledger/config.", True),
    # written after the change, shapes the set lacks
    ("The SSL certs live under /etc/ssl/private", "SSL certs are stored in /opt/certs", True),
    ("Backups sit in s3://backups-old", "Backups are located in s3://backups-new", True),
    ("数据目录位于 /data/pg", "数据目录放在 /mnt/pg", True),
    ("The plugin folder resides in ~/.tool/plugins", "The plugin folder is ~/.config/tool/plugins",
     True),
    # look-alikes: another thing in its place, a retention beside a place
    ("Ledger's config files are located in /etc/ledger.",
     "Ledger's log files are located in /var/log/ledger.", False),
    ("Logs are kept for 30 days.", "Logs are kept in /var/log/app.", False),
    ("The staging config lives in /etc/app/staging.yaml",
     "The production config lives in /etc/app/prod.yaml", False),
])
def test_a_verb_of_where_a_thing_is_is_no_word_of_the_subject(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)
