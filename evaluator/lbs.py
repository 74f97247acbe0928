"""LBS: each option's summed log-probability as the start of the model's reply.

The context is the templated conversation up to the assistant header (the user turn
holds the image and the question); an option's text is appended to it and only the
option's own tokens are scored, never template tokens.

Boundary. A tokenizer may merge the end of the context with the start of the option
(e.g. a trailing space), so, as lm-evaluation-harness does, context and option are
encoded *together* and sliced: the option's tokens are those from the first position
where ``ids(context + option)`` differs from ``ids(context)``; their number is the
stored token count.

Two scorers give the same numbers (a test holds them to 1e-4):

- ``score_shared``: the context (image + question) runs once per item, batched across
  items (left-padded); its KV cache is repeated over the options, which run as one
  right-padded batch continuing from it. The image is encoded once per item.
- ``score_plain``: one full forward pass of context + option per option, no cache, no
  padding. The reference, and a fallback (``--lbs-impl plain``) for a model whose cache
  cannot be repeated.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from leaderboard.errors import BloomBenchError, Problem

from .vlm import LoadedModel, Request, accepts, collate_left, context_text, cut, encode, text_ids, to_device


@dataclass(frozen=True)
class OptionScore:
    logprob: float  # summed natural-log probability of the option's tokens
    tokens: int  # how many tokens were scored


def common_prefix_len(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # stops at the shorter
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True)
class Plan:
    """How one item's options continue its context, in text-only token ids.

    ``shared`` context tokens are common to every option; option ``o`` continues with
    ``continuations[o]`` whose first ``skips[o]`` tokens are still context (re-tokenised
    at the boundary), so its scored tokens are ``continuations[o][skips[o]:]``.
    ``drop`` = context tokens after ``shared`` (cut from the full encoding).
    """

    shared: int
    drop: int
    continuations: tuple[tuple[int, ...], ...]
    skips: tuple[int, ...]


def plan(tokenizer, context: str, options: tuple[str, ...], where: str = "") -> Plan:
    ctx = text_ids(tokenizer, context)
    fulls = [text_ids(tokenizer, context + option) for option in options]
    firsts = [common_prefix_len(ctx, full) for full in fulls]
    for option, full, first in zip(options, fulls, firsts, strict=True):
        if first >= len(full):
            raise BloomBenchError(
                Problem(
                    where or "dataset", None, f"option {option!r} has no tokens of its own", "every option needs non-empty text"
                )
            )
    shared = min(firsts)
    return Plan(
        shared=shared,
        drop=len(ctx) - shared,
        continuations=tuple(tuple(full[shared:]) for full in fulls),
        skips=tuple(first - shared for first in firsts),
    )


def _sum_logprobs(predictors: torch.Tensor, targets: torch.Tensor) -> float:
    """Sum of log-softmax(predictors)[targets], in float32."""
    logp = torch.log_softmax(predictors.float(), dim=-1)
    return float(logp.gather(-1, targets.unsqueeze(-1)).sum())


def _position_ids(lm: LoadedModel, batch: dict[str, torch.Tensor]) -> torch.Tensor | None:
    """Positions for a left-padded prefill, computed as ``generate`` does (model-specific for M-RoPE models)."""
    hook = getattr(lm.model, "_prepare_position_ids_for_generation", None)
    if hook is None or not accepts(lm.model, "position_ids"):
        return None
    return hook(batch["input_ids"], dict(batch))


@torch.inference_mode()
def score_shared(lm: LoadedModel, requests: list[Request], where: list[str] | None = None) -> list[list[OptionScore]]:
    """Score every request's options from a shared, once-computed context (KV cache reuse).

    Alignment, for one item and one option (P context tokens, continuation x0 x1 x2)::

        tokens   c0  c1 ... c[P-1] | x0   x1   x2        (prefill | continuation pass)
        logits   l0  l1 ... l[P-1] | m0   m1   m2
        predicts c1  c2 ... x0     | x1   x2   (unused)

        predictors of x = [ l[P-1], m0, m1 ]  = prefill's last logit + continuation logits[:-1]
        scored: x[skip:], the option's own tokens (skip > 0 when another option re-tokenised more of the context)
    """
    tok, n_items = lm.tokenizer, len(requests)
    texts = [context_text(lm.processor, r.prompt) for r in requests]
    plans = [plan(tok, t, r.options, (where or [""] * n_items)[i]) for i, (t, r) in enumerate(zip(texts, requests, strict=True))]
    n_opt = len(requests[0].options)
    if any(len(r.options) != n_opt for r in requests):
        raise ValueError("every request in a batch must have the same number of options")

    encs = []
    for text, req, p in zip(texts, requests, plans, strict=True):
        enc = encode(lm.processor, text, req.image)
        ids = enc["input_ids"][0].tolist()
        tail = list(text_ids(tok, text)[p.shared :])
        if p.drop and ids[-p.drop :] != tail:  # the processor tokenised the end of the context differently
            raise BloomBenchError(
                Problem(
                    lm.info.get("model_class", "model"),
                    None,
                    "its processor and tokenizer split the end of the prompt differently",
                    "use --lbs-impl plain",
                )
            )
        encs.append(cut(enc, p.drop))

    prefix = to_device(collate_left(encs, lm.pad_id), lm.device, lm.dtype)
    positions = _position_ids(lm, prefix)
    kwargs = {"use_cache": True}
    if positions is not None:
        kwargs["position_ids"] = positions
    if accepts(lm.model, "logits_to_keep"):
        kwargs["logits_to_keep"] = 1
    out = lm.model(**prefix, **kwargs)
    last = out.logits[:, -1, :]  # (items, vocab): predicts each continuation's first token
    cache = out.past_key_values
    if not hasattr(cache, "batch_repeat_interleave"):
        raise BloomBenchError(
            Problem(
                lm.info.get("model_class", "model"),
                None,
                f"its cache ({type(cache).__name__}) cannot be shared across options",
                "use --lbs-impl plain",
            )
        )
    cache.batch_repeat_interleave(n_opt)  # rows: item0 A..D, item1 A..D, ...

    conts = [c for p in plans for c in p.continuations]
    width = max(len(c) for c in conts)
    cont_ids = torch.full((len(conts), width), lm.pad_id, dtype=torch.long)
    cont_mask = torch.zeros((len(conts), width), dtype=prefix["attention_mask"].dtype)
    for row, c in enumerate(conts):
        cont_ids[row, : len(c)] = torch.tensor(c, dtype=torch.long)
        cont_mask[row, : len(c)] = 1
    cont_ids, cont_mask = cont_ids.to(lm.device), cont_mask.to(lm.device)
    attention = torch.cat([prefix["attention_mask"].repeat_interleave(n_opt, dim=0), cont_mask], dim=1)
    kwargs = {"use_cache": True}
    if positions is not None:
        step = torch.arange(1, width + 1, device=positions.device)
        cont_pos = positions[..., -1:] + step  # right after each row's last context token
        kwargs["position_ids"] = cont_pos.repeat_interleave(n_opt, dim=1 if cont_pos.ndim == 3 else 0)
    logits = lm.model(input_ids=cont_ids, attention_mask=attention, past_key_values=cache, **kwargs).logits

    results: list[list[OptionScore]] = []
    for i, p in enumerate(plans):
        scores = []
        for o, (cont, skip) in enumerate(zip(p.continuations, p.skips, strict=True)):
            row = i * n_opt + o
            predictors = torch.cat([last[i : i + 1], logits[row, : len(cont) - 1]], dim=0)
            targets = torch.tensor(cont, device=predictors.device)
            scores.append(OptionScore(_sum_logprobs(predictors[skip:], targets[skip:]), len(cont) - skip))
        results.append(scores)
    return results


@torch.inference_mode()
def score_plain(lm: LoadedModel, requests: list[Request], where: list[str] | None = None) -> list[list[OptionScore]]:
    """The reference: one forward pass of the whole conversation per option, no cache, no padding.

    For ids(context + option) = t0 .. t[n-1] and k = the first index where it differs
    from ids(context): logits[j] predicts t[j+1], so the option's tokens t[k:] are
    predicted by logits[k-1 : n-1].
    """
    results = []
    for req in requests:
        text = context_text(lm.processor, req.prompt)
        ctx = encode(lm.processor, text, req.image)["input_ids"][0].tolist()
        scores = []
        for option in req.options:
            enc = to_device(encode(lm.processor, text + option, req.image), lm.device, lm.dtype)
            ids = enc["input_ids"][0]
            k = common_prefix_len(ctx, ids.tolist())
            logits = lm.model(**enc).logits[0]
            scores.append(OptionScore(_sum_logprobs(logits[k - 1 : len(ids) - 1], ids[k:]), len(ids) - k))
        results.append(scores)
    return results


SCORERS = {"shared": score_shared, "plain": score_plain}
