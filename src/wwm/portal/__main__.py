"""``python -m wwm.portal [options]``: the same as ``wwm portal``."""

import argparse
import sys

from .command import add_arguments, run

parser = argparse.ArgumentParser(prog="wwm portal", description=(__package__ and __doc__) or None)
add_arguments(parser)
sys.exit(run(parser.parse_args()))
