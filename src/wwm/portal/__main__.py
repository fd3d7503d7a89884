"""``python -m wwm.portal [options]``: the same as ``wwm portal``."""

import argparse
import sys

from .command import add_arguments, run


def main() -> int:
    parser = argparse.ArgumentParser(prog="wwm portal", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":  # importing the module (as a walk over the package does) starts nothing
    sys.exit(main())
