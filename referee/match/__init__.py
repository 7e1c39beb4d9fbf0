"""The match runner: one game from a GameSpec to a GameRecord, its clocks, fault policy and log."""
