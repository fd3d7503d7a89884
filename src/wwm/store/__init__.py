"""store layer of wwm."""
