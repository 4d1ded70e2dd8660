"""An exclusive ``flock`` taken within a bounded time: a holder that is stopped (Ctrl-Z,
SIGSTOP) or hung makes a waiter give up, never wait forever.

The uncontended case is one non-blocking ``flock``. Contended, a blocking ``flock`` waits
in a thread of its own (the kernel wakes a waiter when the lock is released; polling
lost to a holder that took the lock again at once, median wait 0.72 s against 0.6 ms), on
its own descriptor of the same open file (an ``flock`` belongs to the open file, not to
the descriptor). Given up, the thread takes the lock once the holder lets go and lets it
go again at once, by closing the last descriptor of that open file. Used for the session
files' writers (``ledger/session_file.py``) and the database writer's turn
(``store/writer_lock.py``).
"""

from __future__ import annotations

import os


def flock_within(fd: int, timeout_s: float) -> bool:
    """Take an exclusive ``flock`` on ``fd`` within ``timeout_s``; ``False`` if not taken
    (the caller closes ``fd`` and says who held it). ``0``: only if it is free now."""
    import fcntl  # (an extension module: a write's, not a read's)

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        if timeout_s <= 0:  # asked only whether it is free
            return False
    import threading  # only when another process holds the lock

    taker = os.dup(fd)
    taken = threading.Event()

    def take() -> None:
        try:
            fcntl.flock(taker, fcntl.LOCK_EX)
            taken.set()
        finally:
            os.close(taker)  # the lock stays with ``fd`` (this open file) unless given up

    threading.Thread(target=take, name="waymarks-flock", daemon=True).start()
    return taken.wait(timeout_s)
