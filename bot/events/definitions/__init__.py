"""What event rules' definitions need beside their service: the triggers list, the OData set,
the checks a rule passes on save, and signing secrets."""
