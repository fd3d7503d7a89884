"""evaluation layer of wwm."""
