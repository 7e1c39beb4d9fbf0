"""The ladder (referee ladder): a standing competition teams submit bots to (issue 26)."""
