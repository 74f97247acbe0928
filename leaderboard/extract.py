"""RAE: read the chosen option from a model's raw reply.

The paper's prompt lists the options as ``1) text`` ... ``4) text`` and asks for the
number; option 1 is ``A`` ... option 4 is ``D``. Two modes:

``paper``
    The public code's rule, for reproducing the paper: ``re.findall(r"[1-4]", reply.strip())``;
    exactly one match gives that option, anything else is unreadable (``None``). So ``"12"``
    (two digits), ``"٣"`` (an Arabic-Indic digit) and ``"Answer: 3. There are 2 cars."`` are all
    unreadable.

``robust`` (the default)
    A reader that takes what a careful person would take from the reply. An *option token* is
    a digit 1-4 (ASCII, Arabic-Indic ``١-٤`` or Eastern ``۱-۴``), a letter A-D (either case) or
    an Arabic letter أ ب ج د (``ا إ آ`` count as ``أ``). A digit counts only when it stands
    alone: not part of a larger number, decimal, time, fraction, range, percentage, ordinal
    or year (``12``, ``3.5``, ``10:30``, ``1/2``, ``1-2``, ``25%``, ``2nd``, ``2023``), and not
    a quantity: a digit followed on the same line by a word (``2 cars``, ``٣ أشخاص``, ``3 pm``)
    is a count, unless that word is a connective (``because``, ``is``, ``or``, ``لأن``, ``هي``
    ...), the reply's own option text for that number, or (after an answer cue or at the start
    of the reply) a capitalised English word (``3 The red car``). A letter counts only where it
    cannot be a word: a leading English article (``A red car``) is not option A, and an Arabic
    letter counts only standalone (``و`` is never a token; ``د.`` and ``أ.`` are the
    abbreviations for doctor and professor unless nothing or the option's text follows).

    The rules, in order of precedence (the first that decides, decides):

    1. Normalise: NFKC; Arabic-Indic digits and Arabic punctuation to ASCII; drop Arabic
       diacritics, tatweel and bidi marks; drop ``<think>`` blocks and tags, markdown emphasis
       (``**``, ``__``, ``*``, backticks) and headings; ``\\boxed{3}`` reads as ``answer: 3``.
    2. Explicit statements, English and Arabic: ``Answer: 3``, ``the (correct|final) answer is
       (C)``, ``correct option: 4``, ``I choose 2``, ``option 3 is correct``, ``(C) is the right
       answer``, ``الإجابة: ٢``, ``الإجابة الصحيحة هي الخيار ٤``, ``الجواب هو ٣``, ``ج: ٣``,
       ``الخيار ٣ هو الصحيح``; after a cue, the text of an option also counts (``The answer is
       The red car``). A cue followed, on the next line, by a numbered list (``Answer:\n1. ...
       \n2. ...``) and a cue after "wrong"/"incorrect"/``الخاطئة`` state nothing. Every statement in
       the reply is collected; statements about the *final* answer outrank the others. All name
       the same option: that option. Different options, or one statement listing several
       (``2 or 3``, ``٢ و ٣``, ``2, 3``, ``2 and 3 are both``): unreadable.
    3. A leading option token: ``3) The red car``, ``3. Because ...``, ``(C) ...``, ``C: ...``,
       ``2 - the bus``, ``Option 3 ...``, ``ب) ...``. Not when the next line goes on with the
       next token in the same style (the reply is a numbered list) or the first line lists
       another token in the same style (``A) ... B) ...``); unreadable when the rest of the first
       line is exactly the text of a *different* option (``2) <text of 3>``) or it lists another
       token (``3 or 4``).
    4. A bare answer, the whole reply one token: ``3``, ``(3)``, ``3.``, ``C``, ``c``,
       ``Option C``, ``٣``, ``ب``, ``د.`` (the special case of rule 3 with nothing after it).
    5. An exact echo of one option's text (case, spacing and surrounding punctuation ignored).
    6. Otherwise, the options the reply mentions: standalone digits (as above), letters in
       parentheses or brackets or after ``option``/``الخيار`` (``(C)``, ``C)``, ``option c``,
       ``(ب)``), and the full text of an option (word-bounded; a shorter option text inside a
       longer option's match does not count; a digit inside a matched option text belongs to
       that text). Mentions right after a negation (``not``, ``rather than``, ``ليس``, ``غير``
       ...) do not count. Exactly one option mentioned: that option; none or several:
       unreadable.

    When a number is both an option number and an option's text (options ``2, 3, 4, 5``), the
    option number wins, as the prompt asks for it: ``"4"`` is option 4 (``D``); ``"4 apples"``
    is a count and matches the option whose text is ``4``.

``extract_many`` applies one mode to a whole submission (about 15,500 replies); the common short
replies (``3``, ``Answer: 3``) take a single precompiled match, and no regex is compiled per call.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache

from .benchmark import OPTIONS

MODES = ("robust", "paper")

# token -> option: digits (ASCII, Arabic-Indic, Eastern), Latin letters, Arabic letters (ا إ آ read as أ)
_VALUE: dict[str, str] = dict(zip("1234١٢٣٤۱۲۳۴ABCDabcdأاإآبجد", "ABCD" * 5 + "AAAABCD", strict=True))
_NEXT = {"A": "B", "B": "C", "C": "D"}
_NOTHING = object()  # a rule that decides nothing
_CONFLICT = object()  # a rule that decides: unreadable

# ---- paper mode -------------------------------------------------------------------------------
_PAPER = re.compile(r"[1-4]")

# ---- normalisation -----------------------------------------------------------------------------
_TRANSLATE: dict[int, int | None] = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹٫٬٪،؛؟۔", "01234567890123456789.,%,;?.")
_DROP = "\u0640\u0670\ufe0f\u20e3\u200b\u200c\u200d\u200e\u200f\u061c\ufeff" + "".join(map(chr, range(0x064B, 0x0660)))
_TRANSLATE.update(
    {ord(c): None for c in _DROP + "".join(map(chr, range(0x202A, 0x202F))) + "".join(map(chr, range(0x2066, 0x206A)))}
)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_TAG = re.compile(r"</?[A-Za-z][\w-]*>")
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_MARKDOWN = re.compile(r"\*+|__+|`+")
_HEADING = re.compile(r"^[ \t]*#+[ \t]*", re.M)
_HSPACE = re.compile(r"[^\S\n]{2,}|[^\S \n]")
_NEWLINES = re.compile(r" ?\n\s*")
_LEAD_JUNK = "\"'“”‘’«» \n\t-–—•>"
_TAIL_JUNK = "\"'“”‘’«» \n\t"
_EDGE_PUNCT = " \n\t.!?,;:\"'“”‘’«»"

# ---- option tokens -----------------------------------------------------------------------------
# A standalone digit (و/ف may be attached before it: "٢ و٣"), letter or Arabic letter.
_TOK = (
    r"(?:(?<![^\W\u0648\u0641])(?<![$€£¥+−×])(?<!\d[.,:/⁄-])[1-4](?![\w%°⁄+]|[.,:/⁄]\d|-\w)"
    r"|(?<![\w.-])(?<!\w['’])[A-Da-d](?![\w]|['’.-]\w)"
    r"|(?<!\w)[أاإآبجد](?!\w))"
)
_PREFIX = r"(?:(?:options?|choices?|number|no\.|#|الخيار|الاختيار|خيار|اختيار|رقم|الرقم)\s*(?:number\s*|رقم\s*)?[:#]?\s*)"
_TOKEN = rf"(?P<pre>{_PREFIX})?(?P<open>[(\[{{]\s*)?(?P<t>{_TOK})(?:\s*(?P<close>[)\]}}]))?"
_AFTER_CUE = re.compile(rf"[\s:=\-–—\"'“”‘’«»]*{_TOKEN}", re.I)
_LIST_NEXT = re.compile(rf"\s*(?:,|/|&|\band/or\b|\bor\b|\band\b|أو|او|و)\s*{_TOKEN}", re.I)
_LEAD = re.compile(rf"{_TOKEN}(?P<delim>[ \t]*[.:\-–—](?=\s|$))?", re.I)
_TOKEN_START = r"(?=[1-4a-docn#(\[{اأإآبجدخر])"  # every first character of _TOKEN: a quick reject that makes scans ~3x faster
_MENTION = re.compile(_TOKEN_START + _TOKEN, re.I)
_NEXT_WORD = re.compile(r"[ \t]*([^\W\d_]+)")
_SKIP_TO_TEXT = re.compile(rf"[\s:=\-–—\"'“”‘’«»]*{_PREFIX}?", re.I)
_ALLOW = frozenset(
    "because since as is was seems looks appears would should could might must will fits matches best correct right "
    "which that this it its it's so then therefore thus and or the for".split()
    + "لأن لان لأنه لانه لأنها لانها حيث إذ اذ هو هي هى وهو وهي فهو فهي أو او و كما الذي التي صحيح صحيحة الصحيح الصحيحة".split()
)
_BOTH = frozenset("are both were كلاهما كلاهم هما صحيحان صحيحتان".split())  # "2 and 3 are both ...": a list
_NEG = re.compile(
    r"(?:\bnot|n't|\bnor|\bneither|\brather\s+than|\binstead\s+of|\bexcept|\bunlike|(?<!\w)(?:ليس|ليست|وليس|وليست|لا|ولا|غير|بدلا\s+من))"
    r"\s*(?:(?:the|options?|choices?|number|answer|الخيار|خيار|رقم)\s*)*[(\[]?\s*$",
    re.I,
)

# ---- explicit statements -----------------------------------------------------------------------
_A, _T = "[اأإآ]", "[ةه]"
_EN_CUE = (
    r"(?:(?:correct|right|best|final|most\s+(?:likely|appropriate|suitable|accurate))\s+)?answers?"
    r"(?:\s+to\s+(?:the|this)\s+question)?"
    r"(?:\s+(?:is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be|appears\s+to\s+be|here\s+is)|\s*[:=])?"
    r"(?:\s+(?:therefore|thus|clearly|likely|probably|definitely|most\s+likely|then))?"
    r"|(?:correct|right|best|final|most\s+(?:likely|appropriate|suitable|accurate))\s+(?:option|choice|one|response|number|selection|match)"
    r"(?:\s+(?:is|would\s+be|should\s+be|here\s+is)|\s*:)?"
    r"|i(?:\s+would|\s+will|'d|’d)?\s+(?:choose|select|pick|go\s+with)|my\s+(?:answer|choice|selection|pick)(?:\s+is|\s*:)?"
)
_AR_CUE = (
    rf"(?:ال)?(?:{_A}جاب{_T}|جواب|حل)(?!\w)"
    rf"(?:\s+(?:ال)?(?:صحيح{_T}?|نهائي{_T}?|صائب{_T}?|سليم{_T}?))?(?:\s+(?:هي|هى|هو|ستكون|تكون|يكون))?(?:\s*:)?"
    rf"|(?:ال)?(?:خيار|{_A}ختيار|رقم)\s+(?:ال)?(?:صحيح|صائب|{_A}فضل|{_A}نسب|مناسب|سليم)(?:\s+(?:هو|هي|هى))?(?:\s*:)?"
    rf"|(?:{_A}ختار|{_A}خترت|{_A}ختياري|{_A}جابتي|جوابي)(?:\s+(?:هو|هي|هى))?(?:\s*:)?"
    rf"|(?:ال)?(?:صحيح{_T}?|صائب{_T}?)\s+(?:ف)?(?:هي|هى|هو)(?:\s*:)?"  # "... أما الصحيحة فهي ٣"
)
_CUE = re.compile(
    r"(?=[abcfimrاأإآجحخرص])"  # every first character of a cue (quick reject)
    rf"(?:(?<!wrong\s)(?<!incorrect\s)(?<!false\s)\b(?:{_EN_CUE})(?![\w])"
    rf"|(?<![^\W\u0648\u0641])(?:{_AR_CUE})"
    r"|(?<![^\n])ج[ \t]*:)",  # lines of the normalised text start without spaces
    re.I,
)
_POST = re.compile(
    rf"{_TOKEN_START}{_TOKEN}\s+(?:(?:is|seems\s+to\s+be|appears\s+to\s+be|would\s+be)\s+(?:the\s+)?"
    r"(?:correct|right|best|most\s+(?:likely|appropriate|suitable|accurate)|answer)\b"
    rf"|(?:(?:هو|هي|هى)\s+)?(?:ال)?(?:صحيح{_T}?|صائب{_T}?|{_A}جاب{_T}(?!\s+(?:ال)?خاطئ)|جواب(?!\s+(?:ال)?خاطئ))(?!\w))",
    re.I,
)


def _normalise(reply: str) -> str:
    s = unicodedata.normalize("NFKC", reply).translate(_TRANSLATE)
    if "<" in s:
        s = _TAG.sub(" ", _THINK.sub(" ", s))
    if "\\boxed" in s:
        s = _BOXED.sub(r" answer: \1 ", s)
    if "*" in s or "_" in s or "`" in s:
        s = _MARKDOWN.sub("", s)
    if "#" in s:
        s = _HEADING.sub("", s)
    s = _HSPACE.sub(" ", s)
    if "\n" in s:
        s = _NEWLINES.sub("\n", s)
    return s.lstrip(_LEAD_JUNK).rstrip(_TAIL_JUNK)


def _clean(text: str) -> str:
    """Lower-case, one space between words, no punctuation or quotes at either end."""
    return " ".join(text.lower().split()).strip(_EDGE_PUNCT)


@lru_cache(maxsize=1 << 16)  # option texts repeat across items ("2", "Red", "Cannot be determined")
def _clean_option(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    return _clean(_MARKDOWN.sub("", text) if "*" in text or "_" in text or "`" in text else text)


class _Options:
    """The four option texts, cleaned only when a rule first needs them (most replies never do)."""

    __slots__ = ("_raw", "_texts")

    def __init__(self, raw: Sequence[str]) -> None:
        self._raw, self._texts = raw, None

    def _get(self) -> tuple[str, ...]:
        if self._texts is None:
            self._texts = tuple(_clean_option(o) if isinstance(o, str) else "" for o in list(self._raw)[:4])
        return self._texts

    def __bool__(self) -> bool:
        return len(self._raw) > 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __getitem__(self, i: int) -> str:
        return self._get()[i]


def _at_option_text(low: str, pos: int, opts: _Options, index: int | None = None) -> set[int]:
    """Indexes of the options whose full text starts at ``low[pos:]`` (word-bounded)."""
    found = set()
    for i, o in enumerate(opts):
        if o and (index is None or i == index) and low.startswith(o, pos):
            after = pos + len(o)
            if after >= len(low) or not low[after].isalnum():
                found.add(i)
    return found


def _follow_ok(text: str, end: int, value: str, opts: _Options | None, loose: bool) -> bool:
    """Whether the word after a token (same line) leaves it an option token rather than a count."""
    m = _NEXT_WORD.match(text, end)
    if m is None:
        return True
    word = m.group(1)
    if word.lower() in _ALLOW or (loose and word[0].isupper()):
        return True
    return bool(opts) and bool(_at_option_text(text.lower(), m.start(1), opts, OPTIONS.index(value)))


def _token_ok(m: re.Match[str], text: str, opts: _Options | None, loose: bool) -> bool:
    t = m["t"]
    if m["close"] is not None or m["pre"]:
        return True
    if t in "abcd" or t in "Aأاإآبجد":  # a lower-case letter, an article, an Arabic letter: never loosely
        loose = False
    return _follow_ok(text, m.end(), _VALUE[t], opts, loose)


def _lists_another(text: str, pos: int, value: str, opts: _Options | None) -> bool:
    """Whether a token at ``pos`` is followed by 'or/and/,' and a token naming another option."""
    m = _LIST_NEXT.match(text, pos)
    if m is None:
        return False
    word = _NEXT_WORD.match(text, m.end())
    if not (word is not None and word.group(1).lower() in _BOTH) and not _token_ok(m, text, opts, loose=False):
        return False
    if m["t"] in "abcdA" and m["close"] is None and not m["pre"] and not m["open"]:
        return False  # "3 and a ..." is an article
    return _VALUE[m["t"]] != value


def _starts_list(text: str, m: re.Match[str]) -> bool:
    """Whether the line-initial token ``m`` (a ``_LEAD`` match) is followed by a line with the next token in the same style."""
    value, nl = _VALUE[m["t"]], text.find("\n", m.end())
    if value not in _NEXT or nl < 0:
        return False
    nxt = _LEAD.match(text, nl + 1)
    return (
        nxt is not None
        and _VALUE[nxt["t"]] == _NEXT[value]
        and (nxt["close"] is None) == (m["close"] is None)
        and (nxt["delim"] or "").strip() == (m["delim"] or "").strip()
    )


def _after_cue(text: str, pos: int, opts: _Options | None) -> object:
    m = _AFTER_CUE.match(text, pos)
    if m is not None and "\n" in text[pos : m.start("t")]:  # "Answer:\n1. First ...\n2. Then ...": a list, not a statement
        line = _LEAD.match(text, text.rfind("\n", 0, m.start("t")) + 1)
        if line is not None and _starts_list(text, line):
            return _NOTHING
    if m is not None and _token_ok(m, text, opts, loose=True):
        value = _VALUE[m["t"]]
        return _CONFLICT if _lists_another(text, m.end(), value, opts) else value
    if opts:
        start = _SKIP_TO_TEXT.match(text, pos).end()
        found = _at_option_text(text.lower(), start, opts)
        if found:
            longest = max(len(opts[i]) for i in found)
            hits = [i for i in found if len(opts[i]) == longest]
            return OPTIONS[hits[0]] if len(hits) == 1 else _CONFLICT
    return _NOTHING


def _explicit(text: str, opts: _Options | None) -> object:
    """Rule 2: every explicit statement; final ones outrank the rest."""
    statements: list[tuple[object, bool]] = []
    for m in _CUE.finditer(text):
        value = _after_cue(text, m.end(), opts)
        if value is not _NOTHING:
            cue = m.group().lower()
            statements.append((value, "final" in cue or "نهائي" in cue))
    for m in _POST.finditer(text):
        t = m["t"]
        if t in "abcd" and not (m["pre"] or m["open"]):
            continue
        statements.append((_VALUE[t], False))
    if not statements:
        return _NOTHING
    if any(final for _, final in statements):
        statements = [s for s in statements if s[1]]
    values = {v for v, _ in statements}
    return values.pop() if len(values) == 1 and _CONFLICT not in values else _CONFLICT


def _leading(text: str, opts: _Options | None) -> object:
    """Rules 3 and 4: the reply starts with an option token (or is one)."""
    m = _LEAD.match(text)
    if m is None:
        return _NOTHING
    t, delim = m["t"], (m["delim"] or "").strip()
    value, end = _VALUE[t], m.end()
    first_line = text[end:].split("\n", 1)[0].strip()
    kind = "digit" if t.isdigit() else "latin" if t.isascii() else "arabic"
    if not text[end:].strip():
        ok = True  # rule 4: a bare answer
    elif kind == "arabic" and t == "ج" and delim == ":":
        return _NOTHING  # "ج:" is "answer:" (rule 2)
    elif m["close"] is not None or m["pre"]:
        ok = True
    elif delim:
        own = bool(opts) and bool(_at_option_text(text.lower(), len(text) - len(text[end:].lstrip()), opts, OPTIONS.index(value)))
        ok = (
            kind == "digit" or (kind == "latin" and t.isupper()) or (kind == "arabic" and (delim != "." or not first_line or own))
        )
    else:
        ok = _token_ok(m, text, opts, loose=True)
    if not ok:
        return _NOTHING
    if _lists_another(text, m.end("close") if m["close"] else m.end("t"), value, opts):
        return _CONFLICT
    if m["close"] is not None:  # "A) ... B) ...", "(a) ... (b) ...": options listed on one line
        for other in _MENTION.finditer(first_line):
            if other["close"] is not None and bool(other["open"]) == bool(m["open"]) and _VALUE[other["t"]] != value:
                return _NOTHING
    if _starts_list(text, m):
        return _NOTHING  # a numbered list, not an answer
    if opts and first_line:
        echoed = {i for i, o in enumerate(opts) if o and o == _clean(first_line)}
        if echoed and OPTIONS.index(value) not in echoed:
            return _CONFLICT
    return value


def _echo(text: str, opts: _Options | None) -> object:
    """Rule 5: the whole reply is one option's text."""
    if not opts:
        return _NOTHING
    whole = _clean(text)
    hits = [i for i, o in enumerate(opts) if o and o == whole]
    if not hits:
        return _NOTHING
    return OPTIONS[hits[0]] if len(hits) == 1 else _CONFLICT


def _negated(low: str, start: int) -> bool:
    return _NEG.search(low, max(0, start - 40), start) is not None


def _mentions(text: str, opts: _Options | None) -> object:
    """Rule 6: exactly one option mentioned anywhere."""
    low = text.lower()
    if len(low) != len(text):
        low = text
    spans: list[tuple[int, int, int]] = []  # option-text mentions
    for i, o in enumerate(opts or ()):
        if not o or (len(o) == 1 and o.isalpha()):  # a one-letter text would match every article
            continue
        pos = low.find(o)
        while pos >= 0:
            end = pos + len(o)
            if (pos == 0 or not low[pos - 1].isalnum()) and (end >= len(low) or not low[end].isalnum()):
                if not _negated(low, pos):
                    spans.append((pos, end, i))
            pos = low.find(o, pos + 1)
    spans = [s for s in spans if not any(o[0] <= s[0] and s[1] <= o[1] and o[1] - o[0] > s[1] - s[0] for o in spans)]
    found: set[str] = set()
    token_spans = set()
    for m in _MENTION.finditer(text):
        t = m["t"]
        if t.isdigit():
            if m["close"] is None and not m["pre"] and not _follow_ok(text, m.end(), _VALUE[t], opts, loose=False):
                continue
        elif not ((m["open"] and m["close"]) or m["pre"] or (m["close"] and t in "ABCD")):
            continue
        s, e = m.start("t"), m.end("t")
        if any(a <= s and e <= b and (a, b) != (s, e) for a, b, _ in spans) or _negated(low, m.start()):
            continue
        found.add(_VALUE[t])
        token_spans.add((s, e))
    found.update(OPTIONS[i] for a, b, i in spans if (a, b) not in token_spans)
    return found.pop() if len(found) == 1 else _NOTHING


_FAST = re.compile(r"\s*(?:answer\s*:\s*)?[(\[]?\s*([1-4١-٤۱-۴A-Da-dأبجد])\s*[)\]]?\.?\s*", re.I)
_RULES = (_explicit, _leading, _echo, _mentions)
# "3) The red car", "Option 3: ...", "الخيار ٣: ...": a number with its delimiter, then the text of that
# option, starting with a letter and holding no digits, parentheses or line breaks to read otherwise
_ECHO_FAST = re.compile(
    r"[ \t]*(?:(?:option|choice|الخيار)[ \t]*)?(?:\(([1-4١-٤])\)|([1-4١-٤])[):.])[ \t]+([^\W\d_][^\n\d()]*)", re.I
)


def _robust(reply: object, options: Sequence[str] | None) -> str | None:
    return _robust_traced(reply, options)[0]


def _robust_traced(reply: object, options: Sequence[str] | None) -> tuple[str | None, bool]:
    """The robust reading, and whether it looked at the option texts (if not, it holds for any options)."""
    if not isinstance(reply, str):
        return None, False
    m = _FAST.fullmatch(reply)
    if m is not None:
        return _VALUE[m.group(1)], False
    if options is not None:  # "3) <the text of option 3>", one line: the rules below read it as 3
        m = _ECHO_FAST.fullmatch(reply)
        if m is not None and len(options) == 4 and not _CUE.search(m.group(3)):
            k = OPTIONS.index(_VALUE[m.group(1) or m.group(2)])
            if isinstance(options[k], str) and _clean(m.group(3)) == _clean_option(options[k]) != "":
                return OPTIONS[k], True
    return _by_rules(reply, options)


def _by_rules(reply: str, options: Sequence[str] | None) -> tuple[str | None, bool]:
    text = _normalise(reply)
    if not text:
        return None, False
    opts = None if options is None else _Options(options)
    value: object = _NOTHING
    for rule in _RULES:
        value = rule(text, opts)
        if value is not _NOTHING:
            break
    used = opts is not None and opts._texts is not None
    return (None if value is _CONFLICT or value is _NOTHING else value), used  # type: ignore[return-value]


def _paper(reply: object) -> str | None:
    if not isinstance(reply, str):
        return None
    found = _PAPER.findall(reply.strip())
    return _VALUE[found[0]] if len(found) == 1 else None


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown RAE mode {mode!r}; use one of {', '.join(MODES)}")


def extract_answer(reply: str, options: Sequence[str] | None = None, mode: str = "robust") -> str | None:
    """The option ('A'..'D') a reply chooses, or None when it is unreadable (scored as wrong).

    ``options`` are the four option texts in prompt order (used by the robust mode to read
    echoes of an option's text); ``mode`` is "robust" or "paper" (see the module docstring).

    >>> extract_answer("Answer: 3. There are 2 cars."), extract_answer("Answer: 3. There are 2 cars.", mode="paper")
    ('C', None)
    """
    _check_mode(mode)
    return _paper(reply) if mode == "paper" else _robust(reply, options)


def extract_many(
    replies: Sequence[str], options_per_reply: Sequence[Sequence[str]] | None = None, mode: str = "robust"
) -> list[str | None]:
    """``extract_answer`` over a whole submission; ``options_per_reply[i]`` belongs to ``replies[i]``."""
    _check_mode(mode)
    if mode == "paper":
        return [_paper(r) for r in replies]
    if options_per_reply is None:
        return [_robust(r, None) for r in replies]
    if len(options_per_reply) != len(replies):
        raise ValueError(f"{len(replies)} replies but {len(options_per_reply)} option lists")
    # Models repeat themselves ("The answer is 3."): a reading that never looked at the option
    # texts holds for every item, so it is computed once per distinct reply.
    known: dict[tuple[object, bool], str | None] = {}
    out: list[str | None] = []
    for reply, opts in zip(replies, options_per_reply, strict=True):
        key = (reply, bool(opts))
        if key in known:
            out.append(known[key])
            continue
        value, used = _robust_traced(reply, opts)
        if not used and isinstance(reply, str):
            known[key] = value
        out.append(value)
    return out
