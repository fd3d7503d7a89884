"""minds layer of wwm."""
