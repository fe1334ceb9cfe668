"""`python -m wellness_api.ops`: the platformctl entry point."""

import sys

from .cli import main

sys.exit(main())
