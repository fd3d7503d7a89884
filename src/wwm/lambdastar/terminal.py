"""What the Λ* commands share at the terminal: number lists, the --out check, progress bars."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def whole_numbers(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("expected at least one number")
    return values


def check_out(out: Path) -> None:
    """--out is a folder that exists and is writable, or one that can be made."""
    import os

    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"cannot use --out {out}: {existing} is not a folder")
    if not os.access(existing, os.W_OK):
        raise ValueError(f"cannot use --out {out}: {existing} is not writable")


def progress_bar(console: Console, quiet: bool = False) -> Progress:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=console, transient=True, disable=quiet)
