"""The pure core: the patch model, path rules and policy, matching, splicing, the plan, the
three-way rescue's pure half and conversion. No disk, no git, no click: a target hands the
plan its reader (docs/architecture.md)."""
