"""A tiny random-weight Coqui VITS, built in about a second, for tests that cannot download one; and
the book and config that runs of it take."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml


def require_coqui() -> None:
    """Skip the calling test module, or fixture, where the coqui extra is missing.

    Never on CI, which installs it: there a missing extra fails.
    """
    if not os.environ.get("CI"):
        pytest.importorskip("TTS", reason="the coqui extra is not installed (pip install -e '.[coqui]')")


def build_tiny_vits(folder: Path) -> tuple[Path, Path]:
    """Write model.pth and config.json of a ~1.6 M parameter character VITS; return their paths.

    Trimming is off: the random model's output is quiet, and Coqui would trim it to nothing.
    """
    import torch
    from TTS.tts.configs.shared_configs import CharactersConfig
    from TTS.tts.configs.vits_config import VitsConfig
    from TTS.tts.models.vits import Vits, VitsArgs

    torch.manual_seed(0)
    characters = CharactersConfig(
        characters_class="TTS.tts.utils.text.characters.Graphemes",
        pad="_",
        eos="",
        bos="",
        blank=None,
        characters="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        punctuations="!'(),-.:;? \"",
        phonemes=None,
    )
    arguments = VitsArgs(
        hidden_channels=32,
        hidden_channels_ffn_text_encoder=64,
        num_heads_text_encoder=2,
        num_layers_text_encoder=2,
        kernel_size_text_encoder=3,
        resblock_type_decoder="2",
        resblock_kernel_sizes_decoder=[3],
        resblock_dilation_sizes_decoder=[[1, 3]],
        upsample_rates_decoder=[8, 8, 4],
        upsample_initial_channel_decoder=64,
        upsample_kernel_sizes_decoder=[16, 16, 8],
        num_layers_flow=2,
        num_layers_posterior_encoder=4,
        init_discriminator=False,
    )
    config = VitsConfig(
        model_args=arguments,
        characters=characters,
        use_phonemes=False,
        text_cleaner="basic_cleaners",
        add_blank=False,
    )
    config.audio.sample_rate = 22050
    config.audio.do_trim_silence = False
    folder.mkdir(parents=True, exist_ok=True)
    model_path, config_path = folder / "model.pth", folder / "config.json"
    torch.save({"model": Vits(config).state_dict()}, model_path)
    config.save_json(str(config_path))
    return model_path, config_path


def coqui_configfile(workdir, tiny_vits, **extra):
    """A config file in the workdir that narrates with Coqui on the tiny VITS (and ``extra`` options)."""
    path = workdir.path / "coqui.yaml"
    path.write_text(yaml.safe_dump({"engine": "coqui", "engines": {"coqui": {**tiny_vits, **extra}}}))
    return str(path)


#: A two-chapter book whose words NANTEXT and OOMTWICE inject faults (engines.coqui.test_faults).
BOOK = (
    "# Tiny\n\n## One\n\nThe lamp was lit at six. Nobody saw it.\n\n"
    "## Two\n\nThe fog came in. NANTEXT appears here. A boat OOMTWICE came home.\n"
)
#: tiny_vits is untrained: its audio is not speech, so the ASR check (enforce for coqui) is off.
NO_ASR = "verify={asr: 'off', tries: 1}"
#: The book without the words that inject faults.
CLEAN_BOOK = BOOK.replace("NANTEXT", "Fog").replace("OOMTWICE", "slowly")
