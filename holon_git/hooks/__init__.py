"""The commit hooks (docs/hooks.md) together: the checks they run (checks.py), the plain git
hook scripts (scripts.py; shipped in the repository's hooks/ directory too) and installing
those into a repository (install.py)."""
