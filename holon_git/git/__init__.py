"""The repository: finding it as git does, its configuration, blobs, the index, branches and
commits, diffs, the three-way merge and the history log. The only package that imports
pygit2, and it loads it on first use (libgit2.py; docs/architecture.md)."""
