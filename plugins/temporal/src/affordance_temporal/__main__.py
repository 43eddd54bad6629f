"""``python -m affordance_temporal worker ...``: see ``affordance_temporal.cli``."""

import sys

from affordance_temporal.cli import main

sys.exit(main())
