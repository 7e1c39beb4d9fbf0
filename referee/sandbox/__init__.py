"""The sandbox: what a launched bot or a build can see, reach and spend."""
