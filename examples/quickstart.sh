#!/bin/sh
# Builds a throwaway repository from examples/repo, applies examples/fix.patch with
# `git holon-apply -v`, and shows its summary and the resulting diff; the JSON receipt of the
# same patch (`--check --json`: planned, nothing written) is left in one file, named at the
# end. The repository is removed when the script ends, however it ends.
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
git holon-apply --check --json "$here/fix.patch" > .git/receipt.json
echo "== git holon-apply -v examples/fix.patch"
git holon-apply -v "$here/fix.patch"
echo "== git diff --stat"
git diff --stat
receipt="${TMPDIR:-/tmp}/holon-example-receipt.json"  # kept: the only file left behind
cp .git/receipt.json "$receipt"
echo "== the receipt (git holon-apply --check --json examples/fix.patch): $receipt"
git status --short
