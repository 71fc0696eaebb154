"""Field mappings: which channel status (priority, severity) stands for which value of an
external project's source, and the rule that items of such a project use mapped values only."""
