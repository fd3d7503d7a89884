"""The portal's repositories: one per aggregate (settings, sign-in failures, users, servers,
combinations, runs, searches, challenges), each over the shared session factory of PortalStore.
"""
