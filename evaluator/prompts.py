"""The paper's zero-shot prompts, reproduced word for word and recorded in provenance.

Source: the public BloomBench code (qcri/Almieyar-Oryx-BloomBench, ``utils/prompts.py``).
The same English instruction frames both languages: for ``ar`` only the question and
the four options are the Arabic ones. The wording is kept as released, quirks
included ("provide the letter of the correct answer (1, 2, 3, or 4) ... . without"),
so that scores are comparable with the paper's.

- RAE: the question and the options numbered ``1)`` ... ``4)`` (A..D), in the user
  turn after the image; the model's raw reply is saved.
- LBS: the question only; each option is then scored as the start of the model's
  reply (appended after the assistant header), never inside the user turn.
"""

from __future__ import annotations

import hashlib
import json

from leaderboard.benchmark import LANGS, Item

SOURCE = "qcri/Almieyar-Oryx-BloomBench utils/prompts.py (generate_prompts), English instruction for both languages"

_INTRO = (
    "You are an expert in visual question answering.\n"
    "You will be given an image and a question about that image.\n"
    "Your task is to answer the question based on the visual content of the image.\n"
)

RAE_TEMPLATE = (
    _INTRO + "The question is in multiple choice format, and you need to select the correct answer from the given options.\n"
    "Question: {question}\n"
    "Options:\n"
    "1) {option_1}\n"
    "2) {option_2}\n"
    "3) {option_3}\n"
    "4) {option_4}\n"
    "Please provide the letter of the correct answer (1, 2, 3, or 4) as your response. without any additional text.\n"
    "Answer: "
)

LBS_TEMPLATE = _INTRO + "Question: {question}\nAnswer: "

TEMPLATES: dict[str, dict[str, str]] = {
    "rae": {lang: RAE_TEMPLATE for lang in LANGS},
    "lbs": {lang: LBS_TEMPLATE for lang in LANGS},
}


def rae_prompt(item: Item, lang: str) -> str:
    """The RAE user text: the question and its options numbered 1) to 4) (A to D)."""
    options = item.options[lang]
    return TEMPLATES["rae"][lang].format(
        question=item.question[lang],
        option_1=options[0],
        option_2=options[1],
        option_3=options[2],
        option_4=options[3],
    )


def lbs_prompt(item: Item, lang: str) -> str:
    """The LBS user text: the question only; the options are scored as the reply."""
    return TEMPLATES["lbs"][lang].format(question=item.question[lang])


def provenance(chat_template: str | None = None) -> dict:
    """What metadata.json records about the prompts: the exact templates and how they are placed."""
    record = {
        "source": SOURCE,
        "rae": dict(TEMPLATES["rae"]),
        "lbs": dict(TEMPLATES["lbs"]),
        "options_numbering": {"1": "A", "2": "B", "3": "C", "4": "D"},
        "message": "one user turn: [image, text]; the model's chat template with add_generation_prompt=True",
        "lbs_continuation": "each option's text appended after the assistant header (the start of the model's reply); only its tokens are scored",
        "system_prompt": None,
    }
    if chat_template is not None:
        record["chat_template_sha256"] = hashlib.sha256(chat_template.encode("utf-8")).hexdigest()
    return record


def prompts_sha256() -> str:
    """A fingerprint of the templates, so that a resumed run cannot mix two prompt versions."""
    return hashlib.sha256(json.dumps(TEMPLATES, sort_keys=True).encode("utf-8")).hexdigest()
