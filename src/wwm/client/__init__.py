"""client layer of wwm."""
