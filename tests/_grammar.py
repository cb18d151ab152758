"""The ApplyPatch grammar as two engines read it: Python Lark and LLGuidance.

LLGuidance is the engine OpenAI names for grammar-constrained custom tools; it is fed the patch
one byte at a time through a byte-level tokenizer, so acceptance does not depend on any model's
vocabulary.
"""

from __future__ import annotations

from functools import cache

import lark
import llguidance

from holon_git.provider import grammar


@cache
def lark_parser() -> lark.Lark:
    # LLGuidance documents its parser as Earley with the equivalent of lexer="dynamic".
    return lark.Lark(grammar(), parser="earley", lexer="dynamic")


def lark_accepts(text: str) -> bool:
    try:
        lark_parser().parse(text)
    except lark.exceptions.LarkError:
        return False
    return True


class _ByteTokenizer:
    """256 one-byte tokens and an end-of-sequence token."""

    def __init__(self) -> None:
        self.tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = [256]

    def __call__(self, text: str | bytes) -> list[int]:
        return list(text.encode("utf-8") if isinstance(text, str) else text)


@cache
def _llg() -> tuple[llguidance.LLTokenizer, str]:
    tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer()))
    return tokenizer, llguidance.LLMatcher.grammar_from_lark(grammar())


def llguidance_validation() -> tuple[bool, list[str]]:
    """(is_error, messages) for the grammar as LLGuidance compiles it."""
    tokenizer, compiled = _llg()
    return llguidance.LLMatcher.validate_grammar_with_warnings(compiled, tokenizer)


def llguidance_accepts(text: str) -> bool:
    tokenizer, compiled = _llg()
    matcher = llguidance.LLMatcher(tokenizer, compiled, log_level=0)
    consumed = matcher.consume_tokens(list(text.encode("utf-8")))
    return consumed and not matcher.is_error() and matcher.is_accepting()


def accepts(text: str) -> bool:
    """Both engines must agree; a disagreement is a bug in the grammar's portability."""
    by_lark, by_llg = lark_accepts(text), llguidance_accepts(text)
    assert by_lark == by_llg, f"lark {by_lark} vs llguidance {by_llg} on {text!r}"
    return by_lark
