"""meta layer of wwm."""
