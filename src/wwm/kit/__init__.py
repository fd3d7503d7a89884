"""The kit: generic minds, worlds and wrappers anyone composes with, used by the features and
the demo: the grid world and its minds, a random mind, Eliza and her world, the region Mind_M
wrapper, World_W sub-space wrappers, a Mind serving as a World."""
