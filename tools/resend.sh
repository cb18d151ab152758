#!/bin/sh
# The re-send yardstick: apply a patch, then send the same patch again, as an agent that retries
# after a timeout does. The first apply must succeed; the second must be refused (non-zero exit)
# and change nothing. Used as an applybench tool command (see bench/README.md):
#   python ../shared/applybench/applybench.py run --cases ../shared/applybench/corpus-public \
#       --tool resend --jobs 2 --out resend.json -- sh "$PWD/tools/resend.sh" {patch}
# A case scores "correct" only if the tree after both sends is the expected one and the second
# send exited non-zero; a second apply that succeeds exits 3 here, which scores "wrong".
git holon-apply "$1" >/dev/null 2>&1 || exit 1
if git holon-apply "$1" >/dev/null 2>&1; then
    echo "resend: the second apply succeeded" >&2
    exit 3
fi
exit 0
