"""The XML printed in section 11.2.1, sent verbatim with curl, is answered in that format."""

from __future__ import annotations

import subprocess
from xml.etree import ElementTree

NEW_RUN = """<xml>
<query name="New run">
<data name="world run ID"> 40031 </data>
<data name="world display URL"> http://worldserver/currentruns/40031.html </data>
</query>
</xml>
"""

GET_ACTION = """<xml>
<query name="Get action">
<data name="mind run ID"> 5505 </data>
<data name="state">
x
</data>
</query>
</xml>
"""



def curl(url: str, body: str, *headers: str) -> tuple[str, ElementTree.Element]:
    args = ["curl", "-s", "-X", "POST", "--data-binary", body, url]
    for h in headers:
        args += ["-H", h]
    out = subprocess.run(args, capture_output=True, text=True, timeout=10, check=True).stdout
    return out, ElementTree.fromstring(out)  # well-formed, or this raises


def test_seed_queries_verbatim_with_curl(probe_mind):
    # curl -d sends a form content type: the server reads the body as the XML it is.
    text, root = curl(probe_mind.url, NEW_RUN)
    assert root.tag == "xml"
    response = root.find("response")
    assert response is not None and response.get("name") == "New run"
    items = {d.get("name"): (d.text or "").strip() for d in response.findall("data")}
    run_id = items["mind run ID"]
    assert len(run_id) >= 20
    assert items["mind display URL"] == "urn:probe:40031:http://worldserver/currentruns/40031.html"

    # The seed's Get action names run 5505, which this server never issued: a refusal, in XML.
    text, root = curl(probe_mind.url, GET_ACTION, "Content-Type: text/xml")
    refusal = root.find("response/refusal")
    assert root.find("response").get("name") == "Get action"
    assert refusal is not None and refusal.get("code") == "unknown-run" and "5505" in refusal.text

    # The same query with the run ID the server issued gets the action, in the seed's format.
    text, root = curl(probe_mind.url, GET_ACTION.replace("5505", run_id), "Content-Type: application/xml")
    data = root.findall("response/data")
    assert [(d.get("name"), d.text.strip()) for d in data] == [("action", "echo:x"), ("Q", "1")]
    assert text.startswith("<xml>\n<response name=\"Get action\">\n<data name=\"action\">")
