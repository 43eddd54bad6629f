"""A "server" that reads whatever the client sends and never answers, not even ``initialize``.

It exits when its stdin closes, as a stdio server should once its client has gone.
"""

from __future__ import annotations

import sys

for _line in sys.stdin:
    pass
