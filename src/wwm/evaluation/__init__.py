"""The Λ* dynamic intelligence test: complexity measures, test batteries, agents and
collectives, the harness, the vectorised engine, the Ray backend, reports and plots."""
