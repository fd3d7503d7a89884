"""An Action Selection method: the last mind in the list has the last word."""

from wwm.selection.methods import OneMind


class LastWord(OneMind):
    name = "last-word"
    doc = "Obey the last mind of the list; if it does not answer, the one before it."

    def order(self, x, members):
        return list(reversed(members))
