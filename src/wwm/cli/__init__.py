"""cli layer of wwm."""
