"""An ACL interaction protocol: FIPA Request-When, with the requester's acknowledgement."""

from wwm.acl.protocols import from_dict

REQUEST_WHEN = from_dict({
    "name": "fipa-request-when", "initial": "start",
    "states": {"start": 1, "requested": 2, "agreed": 3, "done": 4, "acknowledged": 5, "refused": 8,
               "failed": 7},
    "arcs": [
        {"from": "start", "to": "requested", "role": "initiator", "performative": "request-when", "act": "request"},
        {"from": "requested", "to": "agreed", "role": "participant", "performative": "agree", "act": "promise"},
        {"from": "requested", "to": "refused", "role": "participant", "performative": "refuse", "act": "refuse"},
        {"from": "agreed", "to": "done", "role": "participant", "performative": "inform", "act": "assert"},
        {"from": "agreed", "to": "failed", "role": "participant", "performative": "failure", "act": "fail"},
        {"from": "done", "to": "acknowledged", "role": "initiator", "performative": "inform", "act": "declare"},
    ]})
