"""selection layer of wwm."""
