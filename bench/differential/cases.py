"""The cases: model slips on fresh files, stale files in three repository states, and
near-duplicate traps, each with the result the truth rule (truth.py) expects.

Every case is a repository (a list of committed texts of one file, then the working tree's
text), a patch, and the expected text of the file after it, or None where the outcome is not
certain and refusal is expected. Cases are made from a seeded random generator, so a run is
repeatable.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .hunks import BodyLine, Hunk, git_header, git_hunks
from .sources import SourceFile
from .truth import collapse, merged, occurrences, slip_is_certain

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


@dataclass
class Case:
    id: str
    family: str  # fresh | stale | trap
    kind: str
    path: str
    commits: list[str]
    work: str
    patch: str
    expected: str | None  # None: not certain, refusal expected


# --- edits --------------------------------------------------------------------------------


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _code_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if len(line.strip()) > 3]


def make_edit(lines: list[str], target: int, rng: random.Random, tag: str) -> list[str] | None:
    """The file after one plausible edit at line `target`: a line changed, inserted, deleted or
    a pair replaced. The new lines carry `tag` so they occur nowhere else."""
    line = lines[target]
    indent = _indent(line)
    choice = rng.choice(("modify", "modify", "insert", "insert", "delete", "replace"))
    if choice == "modify":
        words = IDENTIFIER.findall(line)
        if words:
            word = rng.choice(words)
            changed = line.replace(word, f"{word}_{tag}", 1)
        else:
            changed = line.rstrip("\n") + f"  # {tag}\n"
        return lines[:target] + [changed] + lines[target + 1 :]
    if choice == "insert":
        inner = indent + ("    " if line.rstrip().endswith(":") else "")
        return lines[: target + 1] + [f'{inner}trace_step("{tag}")\n'] + lines[target + 1 :]
    if choice == "delete":
        if line.rstrip().endswith(":"):
            return None
        return lines[:target] + lines[target + 1 :]
    new = [
        f"{indent}first_{tag} = prepare({IDENTIFIER.findall(line)[:1] or ['None']})\n".replace(
            "['", ""
        ).replace("']", ""),
        f"{indent}second_{tag} = finish(first_{tag})\n",
    ]
    return lines[:target] + new + lines[target + 2 :]


def mutate(text: str, rng: random.Random, vocabulary: list[str]) -> str:
    """A misremembered line: one identifier swapped for another of the file, or a made-up
    statement at the same indentation."""
    words = IDENTIFIER.findall(text)
    if words and vocabulary:
        word = rng.choice(words)
        other = rng.choice(vocabulary)
        if other != word:
            return re.sub(rf"\b{re.escape(word)}\b", other, text, count=1)
    return _indent(text) + "result = compute(value)\n"


# --- slips on one hunk ----------------------------------------------------------------------

Slip = Callable[[Hunk, random.Random, list[str]], Hunk | None]


def _change_span(hunk: Hunk) -> tuple[int, int]:
    changed = [i for i, line in enumerate(hunk.body) if line.tag != " "]
    return changed[0], changed[-1]


def _invent(hunk: Hunk, position: int, rng: random.Random, vocabulary: list[str]) -> bool:
    line = hunk.body[position]
    if line.tag != " " or not line.text.strip():
        return False
    invented = mutate(line.text, rng, vocabulary)
    if invented == line.text:
        return False
    hunk.body[position] = BodyLine(" ", invented, None)
    return True


def invent_first(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return hunk if _invent(hunk, 0, rng, vocabulary) else None


def invent_last(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return hunk if _invent(hunk, len(hunk.body) - 1, rng, vocabulary) else None


def invent_both(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    ok = _invent(hunk, 0, rng, vocabulary) and _invent(hunk, len(hunk.body) - 1, rng, vocabulary)
    return hunk if ok else None


def invent_next_to_change(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    first, _ = _change_span(hunk)
    return hunk if first > 0 and _invent(hunk, first - 1, rng, vocabulary) else None


def skip_context(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    """An interior line of the leading or trailing context left out."""
    first, last = _change_span(hunk)
    inner = [
        i
        for i in range(1, len(hunk.body) - 1)
        if hunk.body[i].tag == " " and (i < first or i > last)
    ]
    if not inner:
        return None
    del hunk.body[rng.choice(inner)]
    return hunk


def blank_missing(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    first, last = _change_span(hunk)
    for i in (first - 1, last + 1):
        if 0 <= i < len(hunk.body) and hunk.body[i].tag == " " and not hunk.body[i].text.strip():
            del hunk.body[i]
            return hunk
    return None


def blank_extra(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    first, last = _change_span(hunk)
    for i in (first, last + 1):
        neighbour = hunk.body[i - 1] if i > 0 else None
        if (
            neighbour is not None
            and neighbour.tag == " "
            and neighbour.text.strip()
            and (i >= len(hunk.body) or hunk.body[i].text.strip())
        ):
            hunk.body.insert(i, BodyLine(" ", "\n", None))
            return hunk
    return None


def _reindent(hunk: Hunk, change: Callable[[str], str | None]) -> Hunk | None:
    for line in hunk.body:
        if line.text.strip():
            new = change(line.text)
            if new is None:
                return None
            line.text = new
    return hunk


def over_indent(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return _reindent(hunk, lambda text: "    " + text)


def under_indent(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return _reindent(hunk, lambda text: text[4:] if text.startswith("    ") else None)


def _tabbed(text: str) -> str:
    spaces = len(text) - len(text.lstrip(" "))
    return "\t" * (spaces // 4) + " " * (spaces % 4) + text[spaces:]


def tabs_for_spaces(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    if not any(line.text.startswith("    ") for line in hunk.body):
        return None
    return _reindent(hunk, _tabbed)


def both_edges_skip(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return skip_context(hunk, rng, vocabulary) and invent_both(hunk, rng, vocabulary)


def tabs_and_invented(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return invent_first(hunk, rng, vocabulary) and tabs_for_spaces(hunk, rng, vocabulary)


def indent_and_invented(hunk: Hunk, rng: random.Random, vocabulary: list[str]) -> Hunk | None:
    return invent_last(hunk, rng, vocabulary) and over_indent(hunk, rng, vocabulary)


SLIPS: dict[str, Slip] = {
    "invent_first": invent_first,
    "invent_last": invent_last,
    "invent_both": invent_both,
    "invent_next_to_change": invent_next_to_change,
    "skip_context": skip_context,
    "blank_missing": blank_missing,
    "blank_extra": blank_extra,
    "over_indent": over_indent,
    "under_indent": under_indent,
    "tabs_for_spaces": tabs_for_spaces,
    "both_edges_skip": both_edges_skip,
    "tabs_and_invented": tabs_and_invented,
    "indent_and_invented": indent_and_invented,
}


WHITESPACE_ONLY = ("over_indent", "under_indent", "tabs_for_spaces")


def _change_at(slipped: Hunk, meant: Hunk) -> tuple[int, int]:
    """(old-side lines of the slipped hunk before its first change, file index of the change
    in the hunk meant) for truth.slip_is_certain."""
    before = 0
    for line in slipped.body:
        if line.tag != " ":
            break
        before += 1
    index = meant.old_start - 1
    for line in meant.body:
        if line.tag != " ":
            break
        index += 1
    return before, index


def _old_side(hunk: Hunk) -> tuple[list[int], list[str]]:
    genuine = [
        line.old_index for line in hunk.body if line.tag in " -" and line.old_index is not None
    ]
    written = [line.text for line in hunk.body if line.tag in " -"]
    return genuine, written


# --- headers --------------------------------------------------------------------------------


def _patch(path: str, old: str, new: str, hunks: list[Hunk], header: str = "git") -> str:
    if header == "git":
        head = git_header(path, old, new)
    elif header == "plain":
        head = f"--- a/{path}\n+++ b/{path}\n"
    else:  # one path: a lone +++ line
        head = f"+++ b/{path}\n"
    return head + "".join(hunk.render() for hunk in hunks)


# --- families -------------------------------------------------------------------------------


class Builder:
    def __init__(self, source: SourceFile, rng: random.Random) -> None:
        self.source = source
        self.rng = rng
        self.old = source.old
        self.lines = source.old.splitlines(keepends=True)
        self.vocabulary = sorted(set(IDENTIFIER.findall(source.old)))
        self.serial = 0

    def case(
        self,
        family: str,
        kind: str,
        commits: list[str],
        work: str,
        patch: str,
        expected: str | None,
    ) -> Case:
        self.serial += 1
        return self.numbered(family, kind, commits, work, patch, expected)

    def numbered(
        self,
        family: str,
        kind: str,
        commits: list[str],
        work: str,
        patch: str,
        expected: str | None,
    ) -> Case:
        """A case named by the serial of the last one made: a variant added later keeps the
        older kinds' ids as they were (reports compare them across runs)."""
        name = f"{self.source.package}-{self.source.path.replace('/', '.')}-{self.serial}"
        return Case(
            f"{kind}:{name}", family, kind, self.source.path, commits, work, patch, expected
        )

    def edited(self, target: int) -> str | None:
        tag = f"j{self.rng.randrange(10**6)}"
        new = make_edit(self.lines, target, self.rng, tag)
        return None if new is None else "".join(new)

    def fresh(self, edits: int) -> Iterator[Case]:
        code = _code_lines(self.lines)
        for target in self.rng.sample(code, min(edits, len(code))):
            new = self.edited(target)
            if new is None:
                continue
            yield from self._fresh_variants(new)

    def _fresh_variants(self, new: str) -> Iterator[Case]:
        path, old = self.source.path, self.old
        hunks = git_hunks(old, new, 3)
        if len(hunks) != 1:
            return
        hunk = hunks[0]
        state = ([old], old)
        yield self.case("fresh", "exact", *state, _patch(path, old, new, hunks), new)
        yield self.case(
            "fresh", "plain_header", *state, _patch(path, old, new, hunks, "plain"), new
        )
        yield self.case(
            "fresh", "lone_plus_header", *state, _patch(path, old, new, hunks, "one"), new
        )
        wrong = git_header(path, old, new) + hunk.render(hunk.counts()[0] + 1, hunk.counts()[1] - 1)
        yield self.case("fresh", "wrong_counts", *state, wrong, new)
        genuine, written = _old_side(hunk)
        unique = len(occurrences(written, self.lines)) == 1
        placeholder = git_header(path, old, new) + re.sub(
            r"^@@ [^@]*@@", "@@ -...,... +...,... @@", hunk.render()
        )
        yield self.case("fresh", "placeholder_header", *state, placeholder, new if unique else None)
        shifted = copy.deepcopy(hunk)
        shifted.old_start += 40 if hunk.old_start < 60 else -40
        shifted.new_start = shifted.old_start
        yield self.case(
            "fresh",
            "wrong_line_number",
            *state,
            _patch(path, old, new, [shifted]),
            new if unique else None,
        )
        for name, slip in SLIPS.items():
            slipped = slip(copy.deepcopy(hunk), self.rng, self.vocabulary)
            if slipped is None:
                continue
            genuine, written = _old_side(slipped)
            certain = slip_is_certain(
                self.lines,
                genuine,
                written,
                hunk.old_start - 1,
                name in WHITESPACE_ONLY,
                _change_at(slipped, hunk),
            )
            yield self.case(
                "fresh", name, *state, _patch(path, old, new, [slipped]), new if certain else None
            )
        yield from self._truncated(hunk, new)

    def _truncated(self, hunk: Hunk, new: str) -> Iterator[Case]:
        path, old = self.source.path, self.old
        first, last = _change_span(hunk)
        header = git_header(path, old, new)
        counts = hunk.counts()
        if len(hunk.body) - last > 2:
            # cut in the last context lines: every change arrived, the edit is whole
            cut = copy.deepcopy(hunk)
            cut.body = cut.body[: last + 2]
            yield self.case(
                "fresh", "truncated_in_last_context", [old], old, header + cut.render(*counts), new
            )
        if first >= 2:
            cut = copy.deepcopy(hunk)
            cut.body = cut.body[:first]
            yield self.case(
                "fresh", "truncated_before_change", [old], old, header + cut.render(*counts), None
            )
        added = [i for i, line in enumerate(hunk.body) if line.tag == "+"]
        if len(added) >= 2:
            cut = copy.deepcopy(hunk)
            cut.body = cut.body[: added[0] + 1]
            yield self.case(
                "fresh", "truncated_in_added", [old], old, header + cut.render(*counts), None
            )

    def fresh_extra(self) -> Iterator[Case]:
        """-U0 insertions and a two-hunk patch written with tabs."""
        path, old = self.source.path, self.old
        code = _code_lines(self.lines)
        target = self.rng.choice(code)
        inner = _indent(self.lines[target]) + (
            "    " if self.lines[target].rstrip().endswith(":") else ""
        )
        new_lines = (
            self.lines[: target + 1]
            + [f'{inner}trace_step("u{target}")\n']
            + self.lines[target + 1 :]
        )
        new = "".join(new_lines)
        hunks = git_hunks(old, new, 0)
        yield self.case("fresh", "u0_insertion", [old], old, _patch(path, old, new, hunks), new)
        yield from self._cut_between_changes(code)
        far = [i for i in code if abs(i - target) > 15]
        if far:
            second = self.rng.choice(far)
            both = self.lines[:]
            for index in sorted((target, second), reverse=True):
                both[index] = both[index].rstrip("\n") + f"  # t{index}\n"
            new = "".join(both)
            hunks = git_hunks(old, new, 3)
            if len(hunks) == 2 and all(tabs_for_spaces(hunk, self.rng, []) for hunk in hunks):
                certain = all(
                    slip_is_certain(self.lines, *_old_side(hunk), hunk.old_start - 1, True)
                    for hunk in hunks
                )
                yield self.case(
                    "fresh",
                    "two_hunks_tabs",
                    [old],
                    old,
                    _patch(path, old, new, hunks),
                    new if certain else None,
                )

    def _cut_between_changes(self, code: list[int]) -> Iterator[Case]:
        """Two changes three lines apart, one hunk, cut off on the context line after the
        first: the second change is lost, so the outcome is not certain."""
        path, old = self.source.path, self.old
        pairs = [i for i in code if i + 4 in code and i + 4 < len(self.lines)]
        if not pairs:
            return
        first = self.rng.choice(pairs)
        lines = self.lines[:]
        for index in (first, first + 4):
            lines[index] = lines[index].rstrip("\n") + f"  # c{index}\n"
        new = "".join(lines)
        hunks = git_hunks(old, new, 3)
        if len(hunks) != 1:
            return
        hunk = hunks[0]
        counts = hunk.counts()
        changed = [i for i, line in enumerate(hunk.body) if line.tag != " "]
        gap = next(i for i in range(changed[0], len(hunk.body)) if hunk.body[i].tag == " ")
        hunk.body = hunk.body[: gap + 1]
        yield self.case(
            "fresh",
            "truncated_between_changes",
            [old],
            old,
            git_header(path, old, new) + hunk.render(*counts),
            None,
        )

    def stale(self, edits: int) -> Iterator[Case]:
        """Patches written against the old release, applied where the file is the new one."""
        current = self.source.new
        if current is None or current == self.old:
            return
        matcher = difflib.SequenceMatcher(
            None, self.lines, current.splitlines(keepends=True), autojunk=False
        )
        near = {
            i
            for tag, i1, i2, _, _ in matcher.get_opcodes()
            if tag != "equal"
            for i in range(max(0, i1 - 8), min(len(self.lines), i2 + 8))
        }
        code = _code_lines(self.lines)
        close = [i for i in code if i in near] or code
        for n in range(edits):
            target = self.rng.choice(close if n % 3 else code)
            new = self.edited(target)
            if new is None:
                continue
            expected = merged(current, self.old, new)
            for context in (3, 0):
                hunks = git_hunks(self.old, new, context)
                patch = _patch(self.source.path, self.old, new, hunks)
                size = f"u{context}"
                yield self.case(
                    "stale", f"stale_uncommitted_{size}", [self.old], current, patch, expected
                )
                yield self.case(
                    "stale",
                    f"stale_committed_{size}",
                    [self.old, current],
                    current,
                    patch,
                    expected,
                )
                yield self.case(
                    "stale", f"stale_only_new_{size}", [current], current, patch, expected
                )
            # one context line, as models often write it
            patch = _patch(self.source.path, self.old, new, git_hunks(self.old, new, 1))
            for state, commits in (
                ("uncommitted", [self.old]),
                ("committed", [self.old, current]),
                ("only_new", [current]),
            ):
                yield self.numbered("stale", f"stale_{state}_u1", commits, current, patch, expected)

    def traps(self, count: int) -> Iterator[Case]:
        """Edits inside a block that occurs twice (sibling code), exact, slipped, renumbered,
        and with the lines above shifted by an uncommitted or committed change."""
        collapsed = [collapse(line) for line in self.lines]
        seen: dict[tuple[str, ...], int] = {}
        pairs: list[tuple[int, int]] = []
        for i in range(len(collapsed) - 2):
            key = tuple(collapsed[i : i + 3])
            if min(len(part) for part in key) < 6:
                continue
            if key in seen and i - seen[key] >= 3:
                pairs.append((seen[key], i))
            seen.setdefault(key, i)
        path, old = self.source.path, self.old
        for first, second in self.rng.sample(pairs, min(count, len(pairs))):
            copy_at = self.rng.choice((first, second))
            new = self.edited(copy_at + 1)
            if new is None:
                continue
            hunks = git_hunks(old, new, 3)
            if len(hunks) != 1:
                continue
            hunk = hunks[0]
            yield self.case("trap", "trap_exact", [old], old, _patch(path, old, new, hunks), new)
            _, written = _old_side(hunk)
            unique = len(occurrences(written, self.lines)) == 1
            placeholder = git_header(path, old, new) + re.sub(
                r"^@@ [^@]*@@", "@@ -...,... +...,... @@", hunk.render()
            )
            yield self.case(
                "trap", "trap_placeholder", [old], old, placeholder, new if unique else None
            )
            for name in ("invent_first", "invent_last", "tabs_for_spaces"):
                slipped = SLIPS[name](copy.deepcopy(hunk), self.rng, self.vocabulary)
                if slipped is not None:
                    certain = slip_is_certain(
                        self.lines,
                        *_old_side(slipped),
                        hunk.old_start - 1,
                        name in WHITESPACE_ONLY,
                        _change_at(slipped, hunk),
                    )
                    yield self.case(
                        "trap",
                        f"trap_{name}",
                        [old],
                        old,
                        _patch(path, old, new, [slipped]),
                        new if certain else None,
                    )
            above = self.rng.randrange(0, first + 1)
            extra = [
                f"import shifted_{self.rng.randrange(10**6)}_{k}\n"
                for k in range(self.rng.randint(2, 9))
            ]
            shifted = "".join(self.lines[:above] + extra + self.lines[above:])
            expected = merged(shifted, old, new)
            for context in (3, 0):
                patch = _patch(path, old, new, git_hunks(old, new, context))
                yield self.case(
                    "trap", f"trap_shift_uncommitted_u{context}", [old], shifted, patch, expected
                )
                yield self.case(
                    "trap",
                    f"trap_shift_committed_u{context}",
                    [old, shifted],
                    shifted,
                    patch,
                    expected,
                )


def generate(
    sources: list[SourceFile], seed: int, fresh_edits: int, stale_edits: int, traps: int
) -> list[Case]:
    cases: list[Case] = []
    for source in sources:
        builder = Builder(source, random.Random(f"{seed}:{source.package}:{source.path}"))
        cases.extend(builder.fresh(fresh_edits))
        cases.extend(builder.fresh_extra())
        cases.extend(builder.stale(stale_edits))
        cases.extend(builder.traps(traps))
    return cases + [_without_index(case) for case in cases if _written_in_another_version(case)]


def _written_in_another_version(case: Case) -> bool:
    """The cases also made without their index line: the stale and shifted ones, and the
    fresh -U0 insertion (``u0_insertion_noindex``: the cost of refusing a context-free hunk
    whose numbers nothing checks; a file with one version reads as the stale only-new case)."""
    return case.kind.startswith(("stale_", "trap_shift_")) or case.kind == "u0_insertion"


def _without_index(case: Case) -> Case:
    """The same stale patch as models mostly write it: git's header without its ``index``
    line, so nothing in the patch names the version it was read off; only the repository
    (HEAD, the index, the history) can say the file changed since."""
    patch = re.sub(r"(?m)^index [0-9a-f]+\.\.[0-9a-f]+.*\n", "", case.patch, count=1)
    kind = case.kind + "_noindex"
    return dataclasses.replace(case, id=kind + case.id[len(case.kind) :], kind=kind, patch=patch)
