"""``tao train`` / ``python -m training``: generate data, train the tokenizer and model, evaluate."""

from __future__ import annotations

import shlex
import sys

from training.config import config_from_args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        cfg = config_from_args(argv)
    except (OSError, ValueError, TypeError) as exc:
        print(f"tao train: bad configuration: {exc}", file=sys.stderr)
        return 2
    from training.train import train

    ckpt = train(cfg, command="python -m training " + shlex.join(argv))
    print(f"checkpoint: {ckpt}")
    return 0
