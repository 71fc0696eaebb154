"""`python -m bot …`: the admin CLI, `migrate`, and the `chat` console."""

import sys

from bot.cli.main import main

sys.exit(main(sys.argv[1:]))
