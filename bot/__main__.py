"""`python -m bot …`: the admin CLI and `migrate`."""

import sys

from bot.cli.main import main

sys.exit(main(sys.argv[1:]))
