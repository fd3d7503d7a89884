"""The WWM portal (section 12.2): anyone browses servers, composes societies, runs and watches them."""
