#!/bin/sh
# Builds a throwaway repository from examples/repo, applies examples/fix.patch with
# `git holon-apply --json`, and shows the receipt and the resulting diff. The repository is
# removed when the script ends, however it ends.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(mktemp -d "${TMPDIR:-/tmp}/holon-example.XXXXXX")
trap 'rm -rf "$repo"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cp -R "$here/repo/." "$repo/"
cd "$repo"
git init -q
git add -A
git -c user.name=example -c user.email=example@example.invalid commit -q -m "example"
echo "== repository: $repo (removed when this script ends)"
echo "== git holon-apply --json examples/fix.patch"
git holon-apply --json "$here/fix.patch"
echo "== git diff --stat"
git diff --stat
git status --short
