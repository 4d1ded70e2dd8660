"""A shipped account's name, then ``/`` or ``:``, then a word and a number, with no login's
word before them: a page, a folder, an image's tag or a file's owner far more often than a
login. After 96eaf6b2 each of the look-alikes below lost its second half to
``[REDACTED:secret]`` (28 of 121 such sentences of everyday work, 0 at ec5c421f); the
passwords beside them, a default or a weak one built on a password's stem, still go."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

#: (text, its password): the password, its last occurrence, alone is redacted
LOGINS = [("admin/admin123", "admin123"), ("root/123456 is a default on many routers.", "123456"),
          ("the router is admin/hunter22, change it", "hunter22"), ("tomcat/s3cret", "s3cret"),
          ("root/Summer2024", "Summer2024"), ("admin/1234abcd", "1234abcd"),
          ("guest/guest123", "guest123"), ("admin:admin", "admin"), ("pi:raspberry", "raspberry"),
          ("login with postgres:postgres", "postgres"), ("creds: bob/hunter22", "hunter22")]

test_each_login_goes, test_each_path_tag_or_owner_stays = stated_tests(LOGINS, [
    "See admin/reports2024 for the numbers.", "Open admin/users2024 in the browser.",
    "The page admin/stats2023 is slow.", "Check root/build123 output.",
    "Build output lands in root/dist2024.", "Upload to admin/uploads2025.",
    "The config lives at admin/config2024 now.", "admin/export20240115 is the folder",
    "guest/room101 is booked.", "Rooms: guest/room12 and guest/room14.",
    "pi/pico2040 board", "root/node18 image", "root/python311 venv",
    "ubuntu:focal20240123", "ubuntu:jammy20240111 image", "admin/v12345 endpoint",
    "operator:v12345", "The file is owned by root:admin.", "owned by root:admin",
    "set owner to root:admin", "The dir is postgres:postgres.", "Owner is mysql:mysql.",
    "Owned by tomcat:tomcat.", "Permissions 0644 root:root.", "root:wheel",
])
