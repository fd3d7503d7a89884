"""A command another package adds to ``wwm``: ``wwm tally WORD...`` counts the words."""

from collections import Counter

from wwm.commands import Command

COMMAND = Command("tally", __name__, "count how often each word is given")


def add_arguments(parser):
    parser.add_argument("words", nargs="+", help="the words to count")


def run(args) -> int:
    for word, count in Counter(args.words).most_common():
        print(f"{word} {count}")
    return 0
