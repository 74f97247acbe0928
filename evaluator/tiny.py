"""A tiny random Gemma 3 (image-text-to-text) built locally, for tests and benchmarks.

No network: the tokenizer is a byte-level BPE trained with the ``tokenizers`` library on
a few English and Arabic sentences, the model is ``Gemma3Config`` with a tiny text and
vision tower, the processor is ``Gemma3Processor`` with ``Gemma3ImageProcessorPil`` and
a Gemma-style chat template. ``build_tiny_gemma3`` saves it with ``save_pretrained``; it
loads back through ``AutoProcessor`` / ``AutoModelForImageTextToText`` like a Hub model.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL_TOKENS = (
    "<pad>",
    "<eos>",
    "<bos>",
    "<unk>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<start_of_image>",
    "<end_of_image>",
    "<image_soft_token>",
)

# Gemma 3's template in miniature: one turn per message, images as <start_of_image>,
# text trimmed, the reply opened by "<start_of_turn>model\n".
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] | trim }}{% else %}"
    "{% for item in message['content'] %}{% if item['type'] == 'image' %}<start_of_image>"
    "{% elif item['type'] == 'text' %}{{ item['text'] | trim }}{% endif %}{% endfor %}{% endif %}"
    "<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

CORPUS = [
    "You are an expert in visual question answering.",
    "You will be given an image and a question about that image.",
    "Your task is to answer the question based on the visual content of the image.",
    "The question is in multiple choice format, and you need to select the correct answer from the given options.",
    "Please provide the letter of the correct answer (1, 2, 3, or 4) as your response. without any additional text.",
    "Question: which object is shown? Options: 1) 2) 3) 4) Answer: 3",
    "The red car in the picture. The round lamp. The wooden tree. The small sign. The bright cup.",
    "The striped bridge, the ancient market, the modern poster, the quiet boat and the busy chart.",
    "[SAMPLE] Question 1 for color: which object is shown?",
    "أنت خبير في الإجابة عن الأسئلة المرئية.",
    "سيارة حمراء في الصورة. مصباح مستدير. شجرة خشبية. لافتة صغيرة. كوب لامع.",
    "جسر مخطط وسوق قديم وملصق حديث وقارب هادئ ومخطط بياني مزدحم.",
    "[عينة] السؤال 1 عن اللون: ما الشيء الظاهر؟ الإجابة الصحيحة هي ٣",
]


def train_tokenizer(vocab_size: int = 600):
    """A byte-level BPE (any text encodes, nothing is unknown) with Gemma's special tokens first."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS * 4, trainer)
    return tok


def build_tiny_gemma3(
    folder: str | Path,
    *,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    vision_hidden: int = 32,
    vision_layers: int = 1,
    image_size: int = 32,
    patch_size: int = 8,
    mm_tokens: int = 4,
    sliding_window: int = 512,
    vocab_size: int = 600,
    chat_template: str = CHAT_TEMPLATE,
    seed: int = 0,
) -> Path:
    """Save a tiny random Gemma 3 model and processor to ``folder``; returns the folder.

    ``mm_tokens`` image tokens per image (a square number); the vision tower sees
    (image_size / patch_size)^2 patches, pooled down to ``mm_tokens``.
    """
    import torch
    from transformers import (
        Gemma3Config,
        Gemma3ForConditionalGeneration,
        Gemma3Processor,
        Gemma3TextConfig,
        PreTrainedTokenizerFast,
        SiglipVisionConfig,
    )
    from transformers.models.gemma3.image_processing_pil_gemma3 import Gemma3ImageProcessorPil

    folder = Path(folder)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=train_tokenizer(vocab_size),
        bos_token="<bos>",
        eos_token="<eos>",
        pad_token="<pad>",
        unk_token="<unk>",
        extra_special_tokens={
            "boi_token": "<start_of_image>",
            "eoi_token": "<end_of_image>",
            "image_token": "<image_soft_token>",
        },
    )
    image_processor = Gemma3ImageProcessorPil(
        size={"height": image_size, "width": image_size}, image_mean=[0.5] * 3, image_std=[0.5] * 3
    )
    processor = Gemma3Processor(
        image_processor=image_processor, tokenizer=tokenizer, chat_template=chat_template, image_seq_length=mm_tokens
    )
    head_dim = max(8, hidden // heads)
    text = Gemma3TextConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=1,
        head_dim=head_dim,
        query_pre_attn_scalar=head_dim,
        sliding_window=sliding_window,
        layer_types=["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)],
        max_position_embeddings=8192,
    )
    vision = SiglipVisionConfig(
        hidden_size=vision_hidden,
        intermediate_size=2 * vision_hidden,
        num_hidden_layers=vision_layers,
        num_attention_heads=2,
        image_size=image_size,
        patch_size=patch_size,
    )
    config = Gemma3Config(
        text_config=text,
        vision_config=vision,
        mm_tokens_per_image=mm_tokens,
        boi_token_index=tokenizer.convert_tokens_to_ids("<start_of_image>"),
        eoi_token_index=tokenizer.convert_tokens_to_ids("<end_of_image>"),
        image_token_index=tokenizer.convert_tokens_to_ids("<image_soft_token>"),
    )
    torch.manual_seed(seed)
    model = Gemma3ForConditionalGeneration(config).eval()
    with torch.no_grad():  # default init leaves near-ties in greedy decoding; a wider spread makes each choice clear-cut
        model.lm_head.weight.normal_(0.0, 0.2)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    model.generation_config.eos_token_id = [tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<end_of_turn>")]
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


LLAVA_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{{ message['role'] | upper }}: "
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}{% for item in message['content'] %}"
    "{% if item['type'] == 'image' %}<image>\n{% elif item['type'] == 'text' %}{{ item['text'] }}{% endif %}{% endfor %}{% endif %}"
    "\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def build_tiny_llava(
    folder: str | Path, *, hidden: int = 32, layers: int = 2, image_size: int = 32, patch_size: int = 8, seed: int = 0
) -> Path:
    """Save a tiny random LLaVA (Llama + CLIP vision, no token types, a reply opened by 'ASSISTANT:')."""
    import torch
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
        PreTrainedTokenizerFast,
    )
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    folder = Path(folder)
    tok = train_tokenizer()
    tok.add_special_tokens(["<image>"])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<bos>",
        eos_token="<eos>",
        pad_token="<pad>",
        unk_token="<unk>",
        extra_special_tokens={"image_token": "<image>"},
    )
    image_processor = CLIPImageProcessorPil(
        size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        chat_template=LLAVA_CHAT_TEMPLATE,
        patch_size=patch_size,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
    )
    config = LlavaConfig(
        text_config=LlamaConfig(
            vocab_size=len(tokenizer),
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=layers,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=2048,
        ),
        vision_config=CLIPVisionConfig(
            hidden_size=hidden,
            intermediate_size=2 * hidden,
            num_hidden_layers=1,
            num_attention_heads=2,
            image_size=image_size,
            patch_size=patch_size,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default",
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    with torch.no_grad():
        model.lm_head.weight.normal_(0.0, 0.2)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
