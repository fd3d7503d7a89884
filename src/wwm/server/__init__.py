"""server layer of wwm."""
