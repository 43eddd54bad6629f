"""``python -m affordance`` is the ``affordance`` command."""

import sys

from affordance.cli import main

sys.exit(main())
