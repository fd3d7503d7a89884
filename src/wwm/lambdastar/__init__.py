"""The Λ* (Lambda Star) dynamic intelligence test of Chmait et al. (seed 001): a toroidal grid,
Good and Evil moving in patterns of measured complexity, rewards around them, one or many
agents; two profiles (``paper`` and ``original``), the fitness-landscape variant, the shared
World server, complexity measures, test batteries, agents and collectives, the harness, the
vectorised engine, the Ray backend, reports and plots. See README.md in this folder for every
decision taken where the paper is silent."""
