"""Statistics: standings, rank intervals, ratings and sequential tests."""
