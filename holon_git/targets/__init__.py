"""Where a plan is read from and written to (docs/targets.md).

``worktree`` (files only), ``index`` (--cached: the index only), ``both`` (--index: working
tree and index), ``ref`` (--ref: a branch in the object database; the checked-out branch with
its index and working tree). ``index`` and ``both`` can also commit (--commit); ``ref`` always
does. base.py states the steps every target takes; registry.py opens one by name.
"""
