"""proxy layer of wwm."""
