"""Issue 43, class 9 ("What to build" item 6): combined slips. The judge decides on all a
proposal tolerated, not on each tolerance alone: two slips that point to one place apply,
and a conflict by contract (a line gained, lost or edited right next to a change) stays
refused. Each test failed before its rule, on a module written here."""

from __future__ import annotations

from pathlib import Path

from gitsupport import applied, refused
from repos.builders import git

RENDER = '''\
import logging

log = logging.getLogger(__name__)


def render(page, theme):
    """Render one page with the theme's layout."""
    header = theme.header(page.title)
    body = theme.body(page.content)
    footer = theme.footer(page.links)
    return header + body + footer


def publish(site):
    for page in site.pages:
        site.write(page.path, render(page, site.theme))
'''

# an insertion whose two far context lines are misremembered (an edited docstring, a
# renamed variable), the two lines either side of it exact
FAR_EDGES_EDITED = '''\
--- a/render.py
+++ b/render.py
@@ -7,6 +7,7 @@ def render(page, theme):
     """Render one page with the site theme's layout."""
     header = theme.header(page.title)
     body = theme.body(page.content)
+    log.debug("rendered %s", page.title)
     footer = theme.footer(page.links)
     return header + body + footers
'''


def test_far_edges_misremembered_as_edited_lines_apply(repo: Path) -> None:
    """Both far context lines are edited forms of the file's lines there, and the lines
    nearest the insertion are exact: the kept lines stand between each edited line and the
    change, so "misremembered" and "changed since" make one edit (a clean merge). Before,
    the far leading line was judged as the line next to the change, edited: refused."""
    (repo / "render.py").write_text(RENDER)
    receipt = applied(repo, FAR_EDGES_EDITED)
    assert "context_invented" in receipt.files[0].hunks[0].tolerances
    assert (repo / "render.py").read_text() == RENDER.replace(
        "    body = theme.body(page.content)\n",
        '    body = theme.body(page.content)\n    log.debug("rendered %s", page.title)\n')


def test_an_edited_line_right_next_to_the_change_stays_refused(repo: Path) -> None:
    """The contract kept: the same insertion with the line right after it edited (and a
    far line too) is a conflict for git merge-file; refused."""
    (repo / "render.py").write_text(RENDER)
    patch = FAR_EDGES_EDITED.replace("theme.footer(page.links)", "theme.footer(page.urls)")
    refused(repo, patch, "context_not_found")


# written one level too deep (four spaces more on every line), its last context line
# misremembered, and adding a block nested one level deeper than any context line
DEEPER_WITH_A_NESTED_BLOCK = '''\
--- a/render.py
+++ b/render.py
@@ -8,4 +8,6 @@ def render(page, theme):
         header = theme.header(page.title)
         body = theme.body(page.content)
+        if page.draft:
+            log.debug("draft %s", page.title)
         footer = theme.footer(page.links)
         return header + body + footers
'''


def test_a_hunk_one_level_off_with_a_misremembered_line_maps_a_deeper_added_line(
        repo: Path) -> None:
    """A whole hunk indented one level too deep plus one misremembered context line: the
    matched lines show one rule (four spaces fewer), and the added line nested deeper than
    every matched line takes it too. Before, an added indentation no matched line held
    refused the hunk."""
    (repo / "render.py").write_text(RENDER)
    receipt = applied(repo, DEEPER_WITH_A_NESTED_BLOCK)
    assert "context_invented" in receipt.files[0].hunks[0].tolerances
    assert (repo / "render.py").read_text() == RENDER.replace(
        "    body = theme.body(page.content)\n",
        "    body = theme.body(page.content)\n    if page.draft:\n"
        '        log.debug("draft %s", page.title)\n')


def test_tabs_for_spaces_with_a_misremembered_line_map_a_deeper_added_line(
        repo: Path) -> None:
    """Tabs for the file's four spaces, and the misremembered line: the added line two tabs
    deep, where every matched line is one tab deep, takes eight spaces."""
    (repo / "render.py").write_text(RENDER)
    head, body = DEEPER_WITH_A_NESTED_BLOCK.split("@@ def render(page, theme):\n")
    patch = head + "@@ def render(page, theme):\n" + "".join(
        line[0] + line[5:].replace("    ", "\t") for line in body.splitlines(keepends=True))
    receipt = applied(repo, patch)
    assert "context_invented" in receipt.files[0].hunks[0].tolerances
    assert (repo / "render.py").read_text() == RENDER.replace(
        "    body = theme.body(page.content)\n",
        "    body = theme.body(page.content)\n    if page.draft:\n"
        '        log.debug("draft %s", page.title)\n')


def test_an_added_indentation_the_matched_lines_map_no_one_way_is_refused(repo: Path) -> None:
    """A deeper added line whose indentation no rule of the matched lines maps (two spaces
    under a hunk four spaces off): nothing says where it goes; refused."""
    (repo / "render.py").write_text(RENDER)
    patch = DEEPER_WITH_A_NESTED_BLOCK.replace('            log.debug', '  log.debug')
    refused(repo, patch, "context_not_found")


LOADERS = '''\
def load_users(db):
    rows = db.query("users")
    result = []
    for row in rows:
        names.add(row.name)
    return result


def load_groups(db):
    rows = db.query("groups")
    result = []
    for row in rows:
        result.append(Group(row))
    return result
'''

# an insertion in load_groups' loop, its last context line misremembered; the leading
# context and the insertion alone fit both loaders
LAST_LINE_MISREMEMBERED = '''\
--- a/loaders.py
+++ b/loaders.py
@@ -11,4 +11,5 @@ def load_groups(db):
     result = []
     for row in rows:
+        log.debug("row %r", row)
         result.append(Group(row))
         return results
'''


def test_the_closer_of_two_places_decides_when_one_side_fits_both(repo: Path) -> None:
    """Read without its trailing context (the one-side reading), the hunk fits both loaders;
    kept with the trailing line next to the change, it fits load_groups alone, where more
    of its lines are the file's: the closer match places it. Before, the one-side reading's
    two places refused it."""
    (repo / "loaders.py").write_text(LOADERS)
    receipt = applied(repo, LAST_LINE_MISREMEMBERED)
    assert "context_invented" in receipt.files[0].hunks[0].tolerances
    assert (repo / "loaders.py").read_text() == LOADERS.replace(
        "    for row in rows:\n        result.append(Group",
        '    for row in rows:\n        log.debug("row %r", row)\n        result.append(Group')


def test_two_places_as_close_stay_refused(repo: Path) -> None:
    """The same hunk where both loaders append the row itself: kept with the line next to
    the change it still fits both; nothing says which; refused."""
    text = LOADERS.replace("names.add(row.name)", "result.append(row)").replace(
        "Group(row)", "row")
    (repo / "loaders.py").write_text(text)
    refused(repo, LAST_LINE_MISREMEMBERED.replace("Group(row)", "row"), "context_not_found")


DEFAULTS = '''\
def defaults():
    timeout = 30
    retries = 3

    # the cache lives next to the data
    cache = Path("data") / "cache"
    return timeout, retries, cache
'''

# a replacement written without the blank line that follows it in the file
BLANK_AFTER_A_REPLACEMENT = '''\
--- a/defaults.py
+++ b/defaults.py
@@ -1,5 +1,5 @@
 def defaults():
     timeout = 30
-    retries = 3
+    retries = 5
     # the cache lives next to the data
     cache = Path("data") / "cache"
'''


def _committed(repo: Path, name: str, text: str) -> None:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"add {name}")


def test_a_blank_line_missing_after_a_replacement_applies_in_a_clean_file(repo: Path) -> None:
    """Contract 8a for a replacement: the blank line after it left out, in a file equal to
    its index and HEAD, every other context line exact. The added line takes the removed
    line's place, so the skipped blank line follows it. Before, no reading put a skipped
    line after a replacement's added lines: refused."""
    _committed(repo, "defaults.py", DEFAULTS)
    receipt = applied(repo, BLANK_AFTER_A_REPLACEMENT)
    assert "context_gap" in receipt.files[0].hunks[0].tolerances
    assert (repo / "defaults.py").read_text() == DEFAULTS.replace("= 3\n", "= 5\n")


def test_a_line_missing_after_a_replacement_stays_a_conflict(repo: Path) -> None:
    """A non-blank line skipped right after the replacement (or a blank one in a file that
    changed since it was committed) is the file changed beside the edit: refused."""
    _committed(repo, "defaults.py", DEFAULTS.replace("\n\n", "\n    verbose = False\n"))
    refused(repo, BLANK_AFTER_A_REPLACEMENT, "context_not_found")
    _committed(repo, "defaults.py", DEFAULTS)
    (repo / "defaults.py").write_text(DEFAULTS.replace("timeout, retries", "retries, timeout"))
    refused(repo, BLANK_AFTER_A_REPLACEMENT, "context_not_found")


def test_the_closer_place_decides_for_a_hunk_one_level_off_too(repo: Path) -> None:
    """The same hunk written one level too deep: three slips in all (the indentation, the
    misremembered last line, context that fits both loaders), but one side is whole and
    the other keeps its line next to the change, so only one edge is left out: the closer
    place decides, and the added line takes the file's indentation. Before, a reading that
    left out far lines was refused whenever its indentation was forgiven."""
    (repo / "loaders.py").write_text(LOADERS)
    head, body = LAST_LINE_MISREMEMBERED.split("@@ def load_groups(db):\n")
    patch = head + "@@ def load_groups(db):\n" + "".join(
        line[0] + "    " + line[1:] for line in body.splitlines(keepends=True))
    receipt = applied(repo, patch)
    assert "context_invented" in receipt.files[0].hunks[0].tolerances
    assert (repo / "loaders.py").read_text() == LOADERS.replace(
        "    for row in rows:\n        result.append(Group",
        '    for row in rows:\n        log.debug("row %r", row)\n        result.append(Group')


STEPS = '''\
def first():
    alpha = load("a")
    return alpha

# the second step, after the first
def second():
    beta = load("b")
    return beta


def third():
    gamma = load("c")
    return gamma
'''

# an insertion whose leading context is first()'s end and whose trailing context is
# third()'s start: each side is exact, at a place of its own
SIDES_APART = '''\
--- a/steps.py
+++ b/steps.py
@@ -7,5 +7,7 @@
     alpha = load("a")
     return alpha
\x20
+def helper():
+    pass
\x20
 def third():
     gamma = load("c")
'''


def test_two_sides_that_fit_two_places_are_not_told_apart_by_a_blank_line(
        repo: Path) -> None:
    """Read by one side, the insertion fits after first() and, by the other, before
    third(): the hunk's own sides point to two places. A reading that keeps the trailing
    side and the blank line above it fits only before third(), but that is no closer
    match (a blank line says nothing of where it is, and the two places come from two
    readings, not one that repeats): refused."""
    (repo / "steps.py").write_text(STEPS)
    refused(repo, SIDES_APART, "context_not_found")
