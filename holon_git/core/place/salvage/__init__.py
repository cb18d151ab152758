"""The ladder's last rungs (LAST_RUNGS in place/ladder.py): a hunk placed by the lines the
model got right, tried only after every level and the three-way rescue failed."""
