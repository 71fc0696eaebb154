"""The admin CLI: `python -m bot admin …` and `python -m bot migrate`."""
