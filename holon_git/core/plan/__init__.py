"""Planning a patch: every file patch placed against its pre-image, in memory, all or
nothing; the three-way rescue, file patches in sequence and re-sends."""
