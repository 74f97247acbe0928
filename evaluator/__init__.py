"""The bundled evaluator: run a vision-language model on BloomBench and write a submission.

``bloombench evaluate`` loads any image-text-to-text model that transformers opens
with ``AutoProcessor`` and ``AutoModelForImageTextToText`` and that has a chat
template, and writes ``predictions.jsonl`` (raw replies for RAE, per-option summed
log-probabilities and token counts for LBS) and ``metadata.json`` with full
provenance. ``bloombench merge`` joins the folders of ``--shard K/N`` runs.

Modules, by concern (torch and transformers are imported only by ``vlm``, ``lbs``,
``runner`` and ``tiny``, so the CLI starts without them):

- ``prompts``  the paper's zero-shot prompts, recorded verbatim in provenance
- ``images``   image references: a local folder or URLs fetched into a cache
- ``store``    the output folder: append-as-you-go lines, resume, atomic final files
- ``vlm``      loading a model, batched greedy generation (RAE)
- ``lbs``      option log-likelihoods: shared-prefix (KV cache) and plain scorers
- ``runner``   the evaluation loop: shards, batches, progress, metadata
- ``merge``    joining shard folders into one submission
- ``tiny``     a tiny random Gemma 3 built locally, for tests and benchmarks
"""
