"""worlds layer of wwm."""
