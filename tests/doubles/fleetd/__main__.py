"""python -m tests.doubles.fleetd up|down|status (tests/doubles/fleetd/launch.py)."""

import sys

from tests.doubles.fleetd.launch import main

sys.exit(main())
