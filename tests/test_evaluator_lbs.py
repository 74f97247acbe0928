"""LBS on a tiny random Gemma 3: the shared-prefix scorer against one full pass per option."""

from __future__ import annotations

import pytest

from evaluator.tiny import CHAT_TEMPLATE, build_tiny_gemma3, build_tiny_llava
from tests.evaluator_support import one_thread, tiny_model  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("one_thread")]

EN = [
    (
        "Which object is shown?",
        ("The red car", "The round lamp in the picture", "A", "The ancient market in the picture in the picture"),
    ),
    ("What colour is the sign?", ("Red.", "Bright blue, almost like the sky", "Green", "1")),
    ("How many boats are there?", ("3", "three boats", "More than four", "None at all")),
]
AR = [
    ("ما الشيء الظاهر؟", ("سيارة حمراء", "مصباح مستدير في الصورة", "ب", "سوق قديم في الصورة في الصورة")),
    ("ما لون اللافتة؟", ("أحمر.", "أزرق لامع مثل السماء", "أخضر", "٣")),
    ("كم عدد القوارب؟", ("ثلاثة قوارب", "٣", "أكثر من أربعة", "لا شيء")),
]


def _requests(cases):
    from PIL import Image

    from evaluator.vlm import Request

    sizes = [(48, 40), (64, 30), (30, 70)]
    return [
        Request(f"Question: {q}\nAnswer: ", Image.new("RGB", sizes[i % 3], (40 * i % 256, 120, 200 - 30 * i)), options)
        for i, (q, options) in enumerate(cases)
    ]


@pytest.fixture(scope="module")
def lm(tiny_model):  # noqa: F811
    from evaluator.vlm import load

    return load(str(tiny_model), device="cpu")


# A template whose reply opens with "Answer: ": the trailing space merges with the option's
# first word (" The"), so the boundary token is re-tokenised and the context must be cut.
MERGING_TEMPLATE = CHAT_TEMPLATE.replace("<start_of_turn>model\n{% endif %}", "<start_of_turn>model\nAnswer: {% endif %}")


@pytest.fixture(scope="module")
def lm_merging(tmp_path_factory):
    from evaluator.vlm import load

    assert MERGING_TEMPLATE != CHAT_TEMPLATE
    folder = build_tiny_gemma3(
        tmp_path_factory.mktemp("tiny-merging"), chat_template=MERGING_TEMPLATE, sliding_window=16, layers=3
    )
    return load(str(folder), device="cpu")


def _assert_same(shared, plain):
    for item_s, item_p in zip(shared, plain, strict=True):
        for s, p in zip(item_s, item_p, strict=True):
            assert s.tokens == p.tokens
            assert s.logprob == pytest.approx(p.logprob, abs=1e-4)
            assert s.logprob < 0


@pytest.mark.parametrize("lang, cases", [("en", EN), ("ar", AR)])
def test_shared_prefix_matches_one_pass_per_option(lm, lang, cases):
    from evaluator.lbs import score_plain, score_shared

    requests = _requests(cases)
    shared = score_shared(lm, requests)  # all items in one batch: padded prefixes, cache repeated over options
    plain = score_plain(lm, requests)
    _assert_same(shared, plain)
    # Only the option's own tokens are scored: in this template the reply starts on a new
    # token, so the count is the option's tokenisation, without end-of-turn or header tokens.
    for req, scores in zip(requests, shared, strict=True):
        assert [s.tokens for s in scores] == [len(lm.tokenizer(o, add_special_tokens=False)["input_ids"]) for o in req.options]


@pytest.mark.parametrize("cases", [EN, AR], ids=["en", "ar"])
def test_boundary_merge_scores_from_first_differing_token(lm_merging, cases):
    from evaluator.lbs import plan, score_plain, score_shared
    from evaluator.vlm import context_text

    requests = _requests(cases)
    context = context_text(lm_merging.processor, requests[0].prompt)
    assert context.endswith("Answer: ")
    p = plan(lm_merging.tokenizer, context, requests[0].options)
    assert p.drop >= 1  # the trailing space is re-tokenised with the option
    shared = score_shared(lm_merging, requests)
    _assert_same(shared, score_plain(lm_merging, requests))
    # Scored tokens: from the first token that differs, i.e. the option with the space it absorbed
    # (" The"), or without it when the space stays a token of its own (" A" -> " ", "A").
    tok = lm_merging.tokenizer
    space = tok(" ", add_special_tokens=False)["input_ids"]
    for req, scores in zip(requests, shared, strict=True):
        expected = []
        for option in req.options:
            ids = tok(" " + option, add_special_tokens=False)["input_ids"]
            expected.append(len(ids) - (ids[:1] == space))
        assert [s.tokens for s in scores] == expected


def test_shared_prefix_batches_agree_with_single_items(lm):
    from evaluator.lbs import score_shared

    requests = _requests(EN + AR)
    together = score_shared(lm, requests)
    alone = [score_shared(lm, [r])[0] for r in requests]
    _assert_same(together, alone)


def test_batched_greedy_generation_matches_single_requests(lm):
    from evaluator.vlm import generate

    requests = _requests(EN + AR)
    batched = generate(lm, requests, max_new_tokens=6)
    single = [generate(lm, [r], max_new_tokens=6)[0] for r in requests]
    assert batched == single
    assert all(isinstance(r, str) and r for r in batched)


def test_plan_slices_at_the_first_differing_token(lm):
    from evaluator.lbs import common_prefix_len, plan

    assert common_prefix_len([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_len([1, 2], [1, 2, 3]) == 2
    tok = lm.tokenizer
    p = plan(tok, "The red", ("dish lamp", " car"))
    ids = tok("The red", add_special_tokens=False)["input_ids"]
    for option, cont, skip in zip(("dish lamp", " car"), p.continuations, p.skips, strict=True):
        full = tok("The red" + option, add_special_tokens=False)["input_ids"]
        assert list(cont) == full[p.shared :]
        assert full[: p.shared + skip] == ids[: p.shared + skip]  # skipped tokens are context, unchanged
        assert full[p.shared + skip] != (ids + [None])[p.shared + skip]  # the first scored token differs
    assert p.drop == len(ids) - p.shared


def test_another_family_needs_no_adapter(tmp_path):
    """LLaVA (Llama + CLIP, no token types, reply opened by 'ASSISTANT:'): the same code, the same guarantees."""
    from evaluator.lbs import score_plain, score_shared
    from evaluator.vlm import generate, load

    lm = load(str(build_tiny_llava(tmp_path / "llava")), device="cpu")
    assert lm.info["model_class"] == "LlavaForConditionalGeneration"
    requests = _requests(EN + AR)
    _assert_same(score_shared(lm, requests), score_plain(lm, requests))
    assert generate(lm, requests, max_new_tokens=5) == [generate(lm, [r], max_new_tokens=5)[0] for r in requests]
