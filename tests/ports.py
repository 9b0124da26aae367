"""Free TCP ports on 127.0.0.1 for the servers tests (and .ci/run) start.

Chosen below the kernel's ephemeral range (32768+ on Linux), so an outgoing connection cannot take
a port between the moment it is picked and the moment a server (re)binds it; a port counts as free
when nothing listens on it and it can be bound. Standard library only: .ci/run calls it as a script
before the virtualenv exists (``python3 tests/ports.py 4`` prints four ports).
"""

from __future__ import annotations

import os
import random
import socket
import sys

LOW, HIGH = 20000, 32000


def is_free(port: int) -> bool:
    """True when nothing listens on ``port`` and it can be bound on 127.0.0.1."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.3).close()
        return False
    except OSError:
        pass
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


#: Ports this run's environment gives its servers: never handed out again, even before their server listens
#: (a server that is stopped or restarting does not hold its port).
RESERVED_ENV = (
    "KGMEM_NEO4J__BOLT_PORT",
    "KGMEM_NEO4J__HTTP_PORT",
    "KGMEM_TEST_PRIVATE_PORTS",
    "KGMEM_TEST_CHROMA_PORT",
)


def reserved() -> frozenset[int]:
    """The ports named in :data:`RESERVED_ENV` (``KGMEM_TEST_PRIVATE_PORTS`` is ``bolt:http``)."""
    values = (os.environ.get(name, "") for name in RESERVED_ENV)
    return frozenset(int(port) for value in values for port in value.split(":") if port.strip().isdigit())


def free_ports(n: int, avoid: frozenset[int] = frozenset()) -> list[int]:
    """``n`` distinct free ports from a random start in [LOW, HIGH) (another process's picks are unlikely to
    collide), none of them :func:`reserved`; raises RuntimeError when the range has fewer."""
    avoid = avoid | reserved()
    start = random.randrange(LOW, HIGH)
    picked: list[int] = []
    for offset in range(HIGH - LOW):
        port = LOW + (start - LOW + offset) % (HIGH - LOW)
        if port not in avoid and is_free(port):
            picked.append(port)
            if len(picked) == n:
                return picked
    raise RuntimeError(f"fewer than {n} free ports in {LOW}-{HIGH} on 127.0.0.1")


if __name__ == "__main__":
    print(" ".join(map(str, free_ports(int(sys.argv[1]) if len(sys.argv) > 1 else 1))))
