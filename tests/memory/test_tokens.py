import pytest

from memory.tokens import TOKENIZER, count_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("the", 1),
        ("extraction", 2),
        ("Hello, world!", 4),
        ("My budget is 8000000 rupees.", 8),
        ("I would like a 3BHK apartment in Pune, close to the metro, under 80 lakhs.", 20),
        ("🙂🙂", 2),
    ],
)
def test_counts_are_deterministic(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens
    assert TOKENIZER == "handover-approx-v1"


def test_whitespace_is_free_and_counts_add_up() -> None:
    assert count_tokens("a   b\n\n c") == 3
    assert count_tokens("budget is 80 lakhs") + count_tokens("for a villa") == count_tokens(
        "budget is 80 lakhs for a villa"
    )
