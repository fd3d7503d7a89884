"""A third-party package that adds an Action Selection method, a World, an ACL protocol and a
command to wwm, each in a file of its own, through the entry points in its dist-info (the test fixture of
tests/plugins/test_plugins.py; a real package declares them in its pyproject.toml)."""
