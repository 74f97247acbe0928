"""RAE answer extraction: the corpus of realistic replies, each rule, and the paper's strict mode."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from leaderboard.extract import MODES, extract_answer, extract_many

CORPUS_PATH = Path(__file__).parent / "data" / "rae_corpus.jsonl"
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines()]
IDS = [f"{i + 1}-{row['lang']}" for i, row in enumerate(CORPUS)]

VEHICLES = ["The red car", "The blue bus", "The bicycle", "The motorcycle"]
COLOURS_AR = ["أحمر", "أزرق", "أخضر", "أصفر"]


# ---- the corpus ------------------------------------------------------------------------------


def test_corpus_is_large_bilingual_and_well_formed() -> None:
    assert len(CORPUS) >= 150
    langs = [row["lang"] for row in CORPUS]
    assert set(langs) == {"en", "ar"}
    assert abs(langs.count("en") - langs.count("ar")) <= len(CORPUS) * 0.1
    for row in CORPUS:
        assert set(row) <= {"reply", "options", "lang", "robust", "paper", "why"} and row["why"]
        assert row["robust"] in (None, "A", "B", "C", "D") and row["paper"] in (None, "A", "B", "C", "D")
        assert "options" not in row or len(row["options"]) == 4


def test_corpus_paper_labels_follow_the_strict_rule() -> None:
    """The hand-written paper labels, checked against a character count (no regex)."""
    for row in CORPUS:
        digits = [c for c in row["reply"].strip() if c in "1234"]
        assert row["paper"] == ("ABCD"["1234".index(digits[0])] if len(digits) == 1 else None), row["reply"]


@pytest.mark.parametrize("row", CORPUS, ids=IDS)
@pytest.mark.parametrize("mode", MODES)
def test_corpus_reply(row: dict, mode: str) -> None:
    assert extract_answer(row["reply"], row.get("options"), mode=mode) == row[mode], row["why"]


def test_corpus_accuracy_robust_versus_paper() -> None:
    """Scored against the careful human reading (the robust labels); the paper's rule misreads many."""
    human = [row["robust"] for row in CORPUS]
    options = [row.get("options") or [] for row in CORPUS]
    replies = [row["reply"] for row in CORPUS]
    robust = extract_many(replies, options, "robust")
    paper = extract_many(replies, options, "paper")
    robust_ok = sum(a == b for a, b in zip(robust, human, strict=True))
    paper_ok = sum(a == b for a, b in zip(paper, human, strict=True))
    for lang in ("en", "ar"):
        idx = [i for i, row in enumerate(CORPUS) if row["lang"] == lang]
        print(
            f"\nRAE corpus ({lang}, {len(idx)} replies): robust {sum(robust[i] == human[i] for i in idx)} agree with a human reading, "
            f"paper {sum(paper[i] == human[i] for i in idx)}"
        )
    print(
        f"RAE corpus (all, {len(CORPUS)}): robust {robust_ok}, paper {paper_ok} ({len(CORPUS) - paper_ok} misread by the paper's rule)"
    )
    assert robust_ok == len(CORPUS)
    assert paper_ok < robust_ok


# ---- paper mode -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("3", "C"),
        (" 1\n", "A"),
        ("Answer: 4", "D"),
        ("12", None),  # two digits
        ("Answer: 3. There are 2 cars.", None),
        ("٣", None),  # Arabic-Indic digits are not [1-4]
        ("ب", None),
        ("C", None),
        ("18", "A"),  # the 8 is not in [1-4]
        ("", None),
        ("5", None),
    ],
)
def test_paper_mode_is_the_public_rule(reply: str, expected: str | None) -> None:
    assert extract_answer(reply, mode="paper") == expected


# ---- rule 1: normalisation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("٣", "C"),
        ("۲", "B"),  # Eastern Arabic-Indic (Persian/Urdu) digit
        ("٤.", "D"),
        ("**2**", "B"),
        ("`3`", "C"),
        ("__1__", "A"),
        ('"4"', "D"),
        ("«٢»", "B"),
        ("３", "C"),  # full-width digit (NFKC)
        ("\u200f\u200e٣\u200f", "C"),  # bidi marks
        ("ـ٢ـ", "B"),  # tatweel
        ("<answer>2</answer>", "B"),
        ("<think>Maybe 1 or 4.</think>\n3", "C"),
        ("$\\boxed{4}$", "D"),
        ("### Answer\n1", "A"),
    ],
)
def test_normalisation(reply: str, expected: str) -> None:
    assert extract_answer(reply) == expected


# ---- rule 2: explicit statements ------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Answer: 3", "C"),
        ("The answer is 2", "B"),
        ("الإجابة: ٢", "B"),
        ("الإجابة الصحيحة هي 4", "D"),
        ("the correct answer is (C)", "C"),
        ("Final answer: option 4", "D"),
        ("I choose 2", "B"),
        ("I'd go with 1.", "A"),
        ("option 3 is correct", "C"),
        ("(B) is the right answer.", "B"),
        ("Correct option: 4", "D"),
        ("My answer is A.", "A"),
        ("The answer is a.", "A"),
        ("The answer is 'C'.", "C"),
        ("الجواب هو ٣", "C"),
        ("الإجابة هي (ب)", "B"),
        ("الاجابه هى ٣", "C"),  # written without hamza, ha for ta marbuta, alef maqsura
        ("الإجابة الصحيحة هي الخيار رقم ٤", "D"),
        ("الخيار ٣ هو الصحيح", "C"),
        ("ج: ٢", "B"),  # "ج:" abbreviates "جواب:" (answer:)
        ("Answer: ٣", "C"),
        ("The answer is ب", "B"),
    ],
)
def test_explicit_statements(reply: str, expected: str) -> None:
    assert extract_answer(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "Answer: 3. There are 2 cars.",
        "The answer is 3 because 2 of the 4 people wear hats.",
        "There are 2 cars and 4 people. The answer is 3.",
        "Options 1 and 2 are wrong; the answer is 3.",
        "الإجابة: ٣. يوجد ٢ سيارات و٤ أشخاص.",
    ],
)
def test_explicit_statement_wins_over_incidental_numbers(reply: str) -> None:
    assert extract_answer(reply) == "C"
    assert extract_answer(reply, mode="paper") is None


def test_explicit_statement_may_name_the_option_text() -> None:
    assert extract_answer("The answer is The bicycle.", VEHICLES) == "C"
    assert extract_answer("The correct answer is: the blue bus", VEHICLES) == "B"
    assert extract_answer("الإجابة الصحيحة هي أزرق", COLOURS_AR) == "B"
    assert extract_answer("The answer is The bicycle.") is None  # without options nothing names an option


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is 2. No wait, the answer is 3.",  # two statements, different options
        "Answer: 2\nCorrect option: 4",
        "The answer is 2 or 3.",  # one statement listing several
        "Answer: 3, 4",
        "Answer: 1/2",
        "The answer is (B) or (C)",
        "الإجابة هي ٢ أو ٣",
        "الإجابة هي ٢ و ٣",
        "الإجابة ٢ و٣ كلاهما صحيح",
    ],
)
def test_explicit_conflicts_are_unreadable(reply: str) -> None:
    assert extract_answer(reply) is None


def test_final_answer_outranks_earlier_statements() -> None:
    assert extract_answer("The answer is 2. Looking again, the final answer is 3.") == "C"
    assert extract_answer("الإجابة ٢. بعد المراجعة، الإجابة النهائية: ٣") == "C"


def test_wrong_answer_is_not_an_answer() -> None:
    assert extract_answer("The wrong answer is 2; the right answer is 4.") == "D"
    assert extract_answer("الإجابة الخاطئة هي ٢، أما الصحيحة فهي ٣.") == "C"
    assert extract_answer("The answer is not 2.") is None


def test_an_answer_cue_before_a_numbered_list_is_not_a_statement() -> None:
    assert extract_answer("Here is my answer:\n1. The car is red.\n2. It is parked.") is None
    assert extract_answer("Answer:\n3) The bicycle", VEHICLES) == "C"


# ---- rules 3 and 4: a leading token, a bare token ------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("3) The bicycle", "C"),
        ("3. Because the bicycle is leaning on the wall.", "C"),
        ("(C) The bicycle", "C"),
        ("C) The bicycle", "C"),
        ("C: the bicycle", "C"),
        ("**2** - the blue bus", "B"),
        ("2 - the bus", "B"),
        ("4\n\nThe image shows a motorcycle with 2 wheels.", "D"),
        ("3 The bicycle", "C"),
        ("3 because the person is holding a book", "C"),
        ("Option 4: the motorcycle", "D"),
        ("ب) أزرق", "B"),
        ("٢- أزرق", "B"),
        ("أ. أحمر", "A"),  # followed by option 1's own text
        ("الخيار ٢", "B"),
        ("- 1) The red car", "A"),
    ],
)
def test_leading_token(reply: str, expected: str) -> None:
    assert extract_answer(reply, VEHICLES if reply.isascii() else COLOURS_AR) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "A red car is parked on the street.",  # an article, not option A
        "A man stands next to the bus.",
        "2 cars are visible.",  # a count
        "3 people are waiting at the stop.",
        "4 o'clock",
        "د. أحمد يقف بجانب السيارة",  # "Dr." abbreviation, not option D
        "1) The red car\n2) The blue bus\n3) The bicycle\n4) The motorcycle",  # the options repeated
        "1. First, look at the colours.\n2. Then compare the shapes.",
        "A) The red car B) The blue bus",
        "3 or 4",
        "ب و ج",  # "و" is "and"
        "أ أو ب",
    ],
)
def test_leading_token_false_positives_and_lists(reply: str) -> None:
    assert extract_answer(reply) is None


def test_leading_number_with_another_options_text_is_unreadable() -> None:
    assert extract_answer("2) The bicycle", VEHICLES) is None
    assert extract_answer("3) The bicycle", VEHICLES) == "C"
    assert extract_answer("2) The bicycle") == "B"  # without options the text cannot be checked


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("3", "C"),
        ("(3)", "C"),
        ("[3]", "C"),
        ("3.", "C"),
        ("C", "C"),
        ("c", "C"),
        ("(c)", "C"),
        ("Option C", "C"),
        ("Choice (d)", "D"),
        ("Number 2", "B"),
        ("٣", "C"),
        ("ب", "B"),
        ("د.", "D"),
        ("أ", "A"),
        ("ا", "A"),  # alef without hamza
        ("إ", "A"),
        ("(ج)", "C"),
        ("رقم ٤", "D"),
        ("3️⃣", "C"),
    ],
)
def test_bare_answer(reply: str, expected: str) -> None:
    assert extract_answer(reply) == expected


@pytest.mark.parametrize("reply", ["3", "Answer: 3", "C", "(c)", "٣", "ب", "answer: 2", "[4]", "d."])
def test_fast_path_agrees_with_the_full_reader(reply: str) -> None:
    """Markdown emphasis forces the full reader; the answer must not change."""
    assert extract_answer(reply) == extract_answer(f"**{reply}**") is not None


# ---- rule 5: echo of an option's text -------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The bicycle", "C"),
        ("the bicycle.", "C"),
        ("  THE   BLUE BUS!", "B"),
        ('"The motorcycle"', "D"),
        ("The red car\n", "A"),
        ("2) The blue bus", "B"),
    ],
)
def test_echo_of_an_option(reply: str, expected: str) -> None:
    assert extract_answer(reply, VEHICLES) == expected


def test_echo_of_a_text_that_starts_with_an_article_or_letter() -> None:
    assert extract_answer("A nurse", ["A firefighter", "A nurse", "A police officer", "A mail carrier"]) == "B"
    assert extract_answer("أحمر", COLOURS_AR) == "A"
    assert extract_answer("طاهٍ يرتب الطعام", ["سوق", "مكتبة", "طفل", "طاه يرتب الطعام"]) == "D"  # diacritics ignored


def test_echo_of_a_text_shared_by_two_options_is_unreadable() -> None:
    assert extract_answer("Red", ["Red", "Blue", "Red", "Green"]) is None


def test_numbers_as_option_texts() -> None:
    counts = ["2", "3", "4", "5"]
    assert extract_answer("4", counts) == "D"  # a bare number is the option number, as the prompt asks
    assert extract_answer("5", counts) == "D"  # not an option number: the echo of option 4's text
    assert extract_answer("There are 4 people.", counts) == "C"  # a count: the option whose text is 4
    assert extract_answer("يوجد ٤ أشخاص", ["٢", "٣", "٤", "٥"]) == "C"
    assert extract_answer("2021", ["2019", "2020", "2021", "2022"]) == "C"
    assert extract_answer("3:45", ["10:30", "3:45", "6:00", "12:15"]) == "B"


# ---- rule 6: mentions -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I think it's 2 because the bus is blue.", "B"),
        ("The image depicts a bicycle, which corresponds to option 3.", "C"),
        ("Looks like (D) to me.", "D"),
        ("The vehicle in the photo is the bicycle leaning on the wall.", "C"),
        ("It is the blue bus, not the red car.", "B"),
        ("Not 2. The one in the picture is 3.", "C"),
        ("The red car, rather than the bicycle.", "A"),
        ("الصورة تظهر الخيار (ب) بوضوح.", "B"),
        ("ليست ٢ بل ٣", "C"),
    ],
)
def test_one_mention(reply: str, expected: str) -> None:
    assert extract_answer(reply, VEHICLES) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "It could be 2 or 3.",
        "Either the red car or the bicycle.",
        "Both (A) and (C) look plausible.",
        "I'm sorry, I can't tell from this image.",
        "None of the options match.",
        "لا أستطيع تحديد الإجابة من الصورة.",
        "Neither 1 nor 2.",
    ],
)
def test_several_or_no_mentions_are_unreadable(reply: str) -> None:
    assert extract_answer(reply, VEHICLES) is None


@pytest.mark.parametrize("number", ["12", "3.5", "10:30", "25%", "2nd", "2023", "1/2", "1-2", "$3", "3-year-old", "٣٫٥", "٢٥٪"])
def test_numbers_that_are_not_options(number: str) -> None:
    assert extract_answer(f"The picture shows {number} of them.") is None
    assert extract_answer(number) is None


@pytest.mark.parametrize("reply", ["بالصورة سيارة", "ورأيت جملا", "جد الطفل يقرأ", "في الصورة د. أحمد"])
def test_arabic_letters_inside_words_are_not_options(reply: str) -> None:
    assert extract_answer(reply) is None


# ---- the API --------------------------------------------------------------------------------


def test_modes_and_unknown_mode() -> None:
    assert MODES == ("robust", "paper")
    with pytest.raises(ValueError, match="unknown RAE mode"):
        extract_answer("3", mode="lenient")
    with pytest.raises(ValueError, match="unknown RAE mode"):
        extract_many(["3"], None, mode="strict")


def test_unreadable_inputs() -> None:
    for mode in MODES:
        assert extract_answer("", mode=mode) is None
        assert extract_answer("   \n", mode=mode) is None
        assert extract_many([None, math.nan, ""], None, mode) == [None, None, None]  # type: ignore[list-item]


def test_extract_many_matches_extract_answer_and_checks_lengths() -> None:
    replies = [row["reply"] for row in CORPUS]
    options = [row.get("options") or [] for row in CORPUS]
    for mode in MODES:
        assert extract_many(replies, options, mode) == [extract_answer(r, o, mode) for r, o in zip(replies, options, strict=True)]
    assert extract_many(["3", "ب"], None) == ["C", "B"]
    with pytest.raises(ValueError, match="option lists"):
        extract_many(["3", "2"], [VEHICLES])


def test_extract_many_on_a_full_submission() -> None:
    """15,494 replies (7,747 items x 2 languages), every corpus reply in turn: a printed throughput figure."""
    n = 15_494
    replies = [CORPUS[i % len(CORPUS)]["reply"] for i in range(n)]
    options = [CORPUS[i % len(CORPUS)].get("options") or [] for i in range(n)]
    for mode in MODES:
        start = time.perf_counter()
        got = extract_many(replies, options, mode)
        seconds = time.perf_counter() - start
        print(f"\nextract_many({mode}): {n} replies in {seconds * 1000:.0f} ms ({n / seconds:,.0f} replies/s)")
        assert got == [CORPUS[i % len(CORPUS)][mode] for i in range(n)]


def test_extract_many_memo_never_carries_an_option_dependent_reading():
    """extract_many reuses readings of repeated replies; it must equal reading each one alone."""
    import json
    import random
    from pathlib import Path

    rows = [
        json.loads(line)
        for line in (Path(__file__).parent / "data" / "rae_corpus.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    option_sets = [r["options"] for r in rows if r.get("options")] + [["2", "3", "4", "5"], ["red", "blue", "green", "black"]]
    rng = random.Random(3)
    replies, options = [], []
    for _ in range(3000):
        row = rng.choice(rows)
        replies.append(row["reply"])
        options.append(rng.choice(option_sets))  # the same reply under many different options
    expected = [extract_answer(r, o) for r, o in zip(replies, options, strict=False)]
    assert extract_many(replies, options) == expected
    assert len(set(replies)) < len(replies) / 5  # replies do repeat, so the memo is exercised


def test_the_echo_fast_path_reads_as_the_rules_do(sample_records):
    """'3) <option 3 text>' skips the rules; on every option text of the sample and the corpus it agrees with them."""
    from leaderboard.extract import _by_rules, _robust_traced

    option_sets = [
        [r["multiple_choice_qa"][f"choice_{o}_{lang}"] for o in "ABCD"] for r in sample_records for lang in ("en", "ar")
    ]
    option_sets += [row["options"] for row in CORPUS if row.get("options")]
    option_sets += [
        ["A red car", "Both A and B", "It is not the answer", "Answer is unclear"],
        ["Red, or blue", "and so on", "x", "Y"],
        ["Both (A) and (B)", "A) red B) blue", "The answer is 2", "Neither"],
        ["Option 4 is wrong", "Not 3", "Two or three", "C or D"],
    ]
    fast = 0
    for options in option_sets:
        for k in range(4):
            ar = "١٢٣٤"[k]
            replies = (
                f"{k + 1}) {options[k]}",
                f"({k + 1}) {options[k]}",
                f"{k + 1}) {options[(k + 1) % 4]}",
                f"{k + 1}. {options[k]}",
                f"{k + 1}: {options[k]}",
                f"Option {k + 1}: {options[k]}",
                f"Choice ({k + 1}) {options[k]}",
                f"الخيار {ar}: {options[k]}",
                f"الخيار {ar}: {options[(k + 2) % 4]}",
                f"{ar}) {options[k]}",
            )
            for reply in replies:
                assert _robust_traced(reply, options)[0] == _by_rules(reply, options)[0], (reply, options)
                fast += reply.startswith(f"{k + 1}) ") and options[k][:1].isascii() and options[k][:1].isalpha()
    assert fast > 500
