"""Placing a hunk in a file: comparison levels, the running file, exact placement on bytes,
splicing the new lines in, and writing added lines the file's way. Pure; bytes only."""
