"""acl layer of wwm."""
