"""The Λ* (Lambda Star) environment of Chmait et al.: a toroidal grid, Good and Evil moving
in patterns of measured complexity, rewards around them, one or many agents; two profiles
(``paper`` and ``original``), the fitness-landscape variant, and the shared World server.
See README.md in this folder for every decision taken where the paper is silent."""
