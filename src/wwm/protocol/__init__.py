"""The World-Wide-Mind protocol: the section-9 query vocabulary, its XML and JSON encodings,
refusal codes, and the async World / Mind interfaces every local or remote server satisfies.

Nothing here knows about HTTP: the server and client layers carry these messages.
"""
