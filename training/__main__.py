"""``python -m training``: same as ``tao train``."""

from training.cli import main

raise SystemExit(main())
