"""A Mind_AS program written from the seed alone, for ``wwm serve-exec`` (one process per
query, section 11.4): it knows "Add mind to collection" and "Remove mind from collection" by
those names only, and keeps its collection in ``collection.txt`` in its working directory."""

import sys
from pathlib import Path
from xml.etree import ElementTree

query = ElementTree.fromstring(sys.stdin.read()).find("query")
name = query.get("name")
data = {d.get("name"): (d.text or "").strip() for d in query.findall("data")}
store = Path("collection.txt")
minds = store.read_text().split() if store.exists() else []
items = ""
if name == "New run":
    items = '<data name="mind run ID">seed-run</data>'
elif name == "Add mind to collection":
    store.write_text(" ".join([*minds, data["mind URL"]]))
elif name == "Remove mind from collection":
    store.write_text(" ".join(m for m in minds if m != data["mind URL"]))
elif name == "Get action":
    items = f'<data name="action">{len(minds)}</data>'
elif name != "End run":
    items = f'<refusal code="unknown-query">{name} is not a query I know</refusal>'
print(f'<xml>\n<response name="{name}">\n{items}\n</response>\n</xml>')
