"""The filesystem: the working tree walked safely (tree.py), a write as one transaction with
its crash journal, the index lock, leftovers of killed applies, the --emit-diff file, and the
one signal-deferral helper (signals.py). No pygit2 (docs/architecture.md)."""
