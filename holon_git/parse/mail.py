"""git format-patch mails read as git am reads them: each mail's commit message (its subject
without '[PATCH n/m]' and the like, then its body up to the '---' line), its author (From:)
and author date (Date:). The diff itself is the unified parser's; this only tells which of
its file patches each mail holds, for --commit and --ref to commit each mail as git am does.
Imported only for a patch that starts like a mail."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..core.model import Mail, Patch
from .text import Lines, header_text

# the line git format-patch starts each mail with (an mbox 'From ' line with a fixed date)
_MBOX_FROM = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$")
# what ends a mail's message, as git mailinfo's patchbreak: '---' (the diffstat follows),
# or the diff itself
_PATCH_BREAK = re.compile(rb"^(?:---[ \t]*$|diff -|Index: )")
_PLAIN_ENCODINGS = ("", "7bit", "8bit", "binary")


def read_mails(lines: Lines, patch: Patch) -> None:
    """Set ``patch.mails`` (and each file patch's ``mail``) when ``lines`` are git
    format-patch mails, each holding file patches; leave the patch as it is otherwise. Only
    splits the lines: the headers are read (``read_commit``) when a commit needs them."""
    items = lines.items
    starts = [i for i, line in enumerate(items) if _MBOX_FROM.match(header_text(line))]
    if not starts or starts[0] != 0:
        starts = [0, *starts] if items and items[0].startswith(b"From:") else []
    if not starts:
        return
    mails: list[Mail] = []
    bounds = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(items)
        mails.append(_split_mail(items[start:end]))
        bounds.append(lines.numbers[start])
    owners = [max(n for n, first in enumerate(bounds) if first <= fp.patch_line)
              for fp in patch.files]
    if set(owners) != set(range(len(mails))):
        return  # a mail with no diff (a cover letter): not a series git am applies
    for fp, owner in zip(patch.files, owners, strict=True):
        fp.mail = owner
    patch.mails = mails


def _split_mail(lines: Sequence[bytes]) -> Mail:
    """A mail's header lines (without the mbox 'From ' line) and its body up to the patch
    break, as written."""
    at = 1 if lines and lines[0].startswith(b"From ") else 0
    header_end = next((i for i in range(at, len(lines)) if not header_text(lines[i])),
                      len(lines))
    body_end = next((i for i in range(header_end + 1, len(lines))
                     if _PATCH_BREAK.match(lines[i])), len(lines))
    return Mail(b"".join(lines[at:header_end]), b"".join(lines[header_end + 1:body_end]))


def read_commit(mail: Mail) -> Mail | None:
    """``mail`` with its commit read: the message, author and date git am gives it; None
    when git am would not read it so here (no subject, a body in quoted-printable or
    base64)."""
    from email.parser import BytesHeaderParser  # a commit of mails only: start-up counts
    from email.policy import default

    try:
        headers = BytesHeaderParser(policy=default).parsebytes(mail.headers)
        subject = headers.get("Subject")
        sender = headers.get("From")
        date = headers.get("Date")
        encoding = str(headers.get("Content-Transfer-Encoding", "")).strip().lower()
        author = None
        if sender is not None and sender.addresses:
            address = sender.addresses[0]
            author = f"{address.display_name or address.username} <{address.addr_spec}>"
    except (ValueError, TypeError, IndexError, AttributeError):
        return None
    if subject is None or encoding not in _PLAIN_ENCODINGS:
        return None
    body = [line.rstrip("\r") for line in
            mail.body.decode("utf-8", "surrogateescape").split("\n")]
    fields = {"Subject": str(subject), "From": author, "Date": None if date is None
              else str(date)}
    body = _in_body_headers(body, fields)
    title = clean_subject(fields["Subject"] or "")
    text = "\n".join(body).strip("\n")
    return replace(mail, message=f"{title}\n\n{text}\n" if text else f"{title}\n",
                   author=fields["From"], date=fields["Date"])


def _in_body_headers(body: list[str], fields: dict[str, str | None]) -> list[str]:
    """git mailinfo's in-body headers: 'From:', 'Subject:' and 'Date:' lines at the top of
    the body (git format-patch --from writes the author's there) override the mail's; the
    body is what follows them."""
    at = 0
    while at < len(body) and not body[at].strip():
        at += 1
    found = False
    while at < len(body):
        name, colon, value = body[at].partition(": ")
        if not colon or name not in fields:
            break
        if name == "From":
            from email.utils import parseaddr

            real, address = parseaddr(value)
            if not address:
                break
            value = f"{real or address.split('@')[0]} <{address}>"
        fields[name] = value.strip()
        found = True
        at += 1
    return body[at:] if found else body


def clean_subject(subject: str) -> str:
    """git mailinfo's cleanup of a subject: leading 'Re:', ':', blanks and '[...]' groups
    ('[PATCH v2 1/3]', '[RFC]') removed, runs of whitespace made one space."""
    while True:
        if subject[:3].lower() == "re:":
            subject = subject[3:]
        elif subject[:1] in (" ", "\t", ":", "\n"):
            subject = subject[1:]
        elif subject[:1] == "[" and "]" in subject:
            subject = subject[subject.index("]") + 1:]
        else:
            break
    return " ".join(subject.split())
