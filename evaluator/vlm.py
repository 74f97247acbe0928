"""A vision-language model behind one small interface: load, encode, generate (RAE).

Any model that transformers opens with ``AutoProcessor`` and
``AutoModelForImageTextToText`` and whose processor has a chat template works; nothing
here is specific to one family. Weights load from safetensors only, remote code only
when asked for, bf16 on GPU and float32 on CPU unless ``--dtype`` says otherwise.
"""

from __future__ import annotations

import copy
import inspect
import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch

from leaderboard.errors import BloomBenchError, Problem

_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class Request:
    """One (item, language) to run: the user text, its image, and for LBS the options to score."""

    prompt: str
    image: object  # PIL.Image.Image
    options: tuple[str, ...] = ()


@dataclass
class LoadedModel:
    model: torch.nn.Module
    processor: object
    device: torch.device  # where inputs go (the embedding layer's device)
    dtype: torch.dtype
    info: dict = field(default_factory=dict)

    @property
    def tokenizer(self):
        return self.processor.tokenizer

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        for candidate in (tok.pad_token_id, tok.eos_token_id, 0):
            if isinstance(candidate, int):
                return candidate
        return 0


def choose_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def choose_dtype(dtype: str, device: str) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    return {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}[dtype]


def hardware(device: str, device_map: str | None) -> str:
    """A short description of what ran the model, e.g. '1x NVIDIA H100 80GB HBM3'."""
    if device.startswith("cuda") and torch.cuda.is_available():
        if device_map:
            ids = list(range(torch.cuda.device_count()))
        else:
            ids = [torch.device(device).index or 0]
        names = [torch.cuda.get_device_name(i) for i in ids]
        return ", ".join(f"{names.count(n)}x {n}" for n in dict.fromkeys(names))
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"CPU {cpu} ({os.cpu_count()} cores)"


def resolve_revision(model_id: str, revision: str | None) -> str:
    """The 40-hex Hub commit that ``revision`` (a branch, tag or commit; default main) points to."""
    from huggingface_hub import hf_hub_download

    try:
        path = hf_hub_download(model_id, "config.json", revision=revision)
    except Exception as exc:  # network, auth, unknown id or revision
        raise BloomBenchError(
            Problem(
                model_id,
                None,
                f"could not reach the model on the Hub ({type(exc).__name__})",
                "check the id, --revision, the network and HF_TOKEN for gated models",
            )
        ) from None
    commit = Path(path).parent.name
    if not _SHA.match(commit):
        from huggingface_hub import HfApi

        commit = HfApi().model_info(model_id, revision=revision).sha or ""
    if not _SHA.match(commit):
        raise BloomBenchError(
            Problem(
                model_id,
                None,
                f"could not resolve revision {revision or 'main'} to a commit",
                "pass --revision with a 40-hex commit",
            )
        )
    return commit


def load(
    source: str,
    revision: str | None = None,
    dtype: str = "auto",
    device: str = "auto",
    device_map: str | None = None,
    trust_remote_code: bool = False,
) -> LoadedModel:
    """Load a processor and model from a local folder or the Hub (``revision`` is already a commit for the Hub)."""
    from transformers import AutoModelForImageTextToText, AutoProcessor

    dev = choose_device(device)
    torch_dtype = choose_dtype(dtype, dev)
    kwargs = {"revision": revision, "trust_remote_code": trust_remote_code}
    try:
        processor = AutoProcessor.from_pretrained(source, **kwargs)
        model = AutoModelForImageTextToText.from_pretrained(
            source, dtype=torch_dtype, use_safetensors=True, device_map=device_map, **kwargs
        )
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise BloomBenchError(
            Problem(
                source,
                None,
                f"could not be loaded as an image-text-to-text model with safetensors weights ({first})",
                "pass a model that AutoModelForImageTextToText loads (safetensors weights; --trust-remote-code only if you trust it)",
            )
        ) from None
    if getattr(processor, "tokenizer", None) is None:
        raise BloomBenchError(
            Problem(source, None, "its processor has no tokenizer", "use a model whose AutoProcessor includes a tokenizer")
        )
    template = getattr(processor, "chat_template", None) or getattr(processor.tokenizer, "chat_template", None)
    if not template:
        raise BloomBenchError(
            Problem(source, None, "has no chat template", "use an instruction-tuned model that ships chat_template.jinja")
        )
    if device_map is None:
        model.to(dev)
    model.eval()
    input_device = model.get_input_embeddings().weight.device
    info = {
        "model_class": type(model).__name__,
        "processor_class": type(processor).__name__,
        "chat_template": template if isinstance(template, str) else str(template),
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "dtype": str(torch_dtype).removeprefix("torch."),
        "device": f"device_map={device_map}" if device_map else dev,
        "hardware": hardware(dev, device_map),
        "attn_implementation": getattr(model.config, "_attn_implementation", None),
    }
    return LoadedModel(model, processor, input_device, torch_dtype, info)


def context_text(processor, prompt: str) -> str:
    """The templated conversation up to the start of the model's reply: user turn [image, text] + assistant header."""
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]
    return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


def adds_special_tokens(tokenizer, text: str) -> bool:
    """Whether tokenising ``text`` should add special tokens: not when the template already wrote the BOS."""
    bos = tokenizer.bos_token
    return not (bos and text.startswith(bos))


def encode(processor, text: str, image) -> dict[str, torch.Tensor]:
    """Processor inputs for one conversation with one image (image placeholders expanded)."""
    out = processor(
        text=[text], images=[[image]], add_special_tokens=adds_special_tokens(processor.tokenizer, text), return_tensors="pt"
    )
    return dict(out)


def text_ids(tokenizer, text: str) -> list[int]:
    """Token ids of ``text`` with the tokenizer alone (image placeholders stay single tokens)."""
    return tokenizer(text, add_special_tokens=adds_special_tokens(tokenizer, text))["input_ids"]


def per_token_keys(enc: dict[str, torch.Tensor]) -> list[str]:
    """Inputs aligned with input_ids (ids, masks, token types): shape (1, sequence length)."""
    n = enc["input_ids"].shape[1]
    return [k for k, v in enc.items() if isinstance(v, torch.Tensor) and v.ndim == 2 and v.shape == (1, n)]


def cut(enc: dict[str, torch.Tensor], drop: int) -> dict[str, torch.Tensor]:
    """``enc`` without its last ``drop`` tokens (images untouched)."""
    if drop == 0:
        return enc
    keys = per_token_keys(enc)
    return {k: (v[:, :-drop] if k in keys else v) for k, v in enc.items()}


def collate_left(encodings: list[dict[str, torch.Tensor]], pad_id: int) -> dict[str, torch.Tensor]:
    """Batch single-conversation encodings: left-pad per-token inputs, concatenate image inputs."""
    width = max(e["input_ids"].shape[1] for e in encodings)
    batch: dict[str, list[torch.Tensor]] = {}
    for enc in encodings:
        keys = per_token_keys(enc)
        for key, value in enc.items():
            if not isinstance(value, torch.Tensor):
                continue
            if key in keys:
                fill = pad_id if key == "input_ids" else 0
                pad = torch.full((1, width - value.shape[1]), fill, dtype=value.dtype)
                value = torch.cat([pad, value], dim=1)
            batch.setdefault(key, []).append(value)
    return {k: torch.cat(v, dim=0) for k, v in batch.items()}


def to_device(batch: dict[str, torch.Tensor], device: torch.device, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    return {k: v.to(device=device, dtype=dtype) if v.is_floating_point() else v.to(device) for k, v in batch.items()}


def accepts(model: torch.nn.Module, name: str) -> bool:
    return name in inspect.signature(model.forward).parameters


def greedy_config(lm: LoadedModel, max_new_tokens: int):
    """The model's generation config, made greedy (temperature 0, as in the paper)."""
    config = copy.deepcopy(lm.model.generation_config)
    config.do_sample = False
    config.num_beams = 1
    config.temperature = None
    config.top_p = None
    config.top_k = None
    config.max_new_tokens = max_new_tokens
    if config.pad_token_id is None:
        config.pad_token_id = lm.pad_id
    return config


@torch.inference_mode()
def generate(lm: LoadedModel, requests: list[Request], max_new_tokens: int) -> list[str]:
    """Greedy replies for a batch of requests (left-padded), decoded without special tokens."""
    texts = [context_text(lm.processor, r.prompt) for r in requests]
    encs = [encode(lm.processor, t, r.image) for t, r in zip(texts, requests, strict=True)]
    batch = to_device(collate_left(encs, lm.pad_id), lm.device, lm.dtype)
    out = lm.model.generate(**batch, generation_config=greedy_config(lm, max_new_tokens))
    new = out[:, batch["input_ids"].shape[1] :]
    return lm.processor.batch_decode(new, skip_special_tokens=True)
