"""The portal's store on SQLite and on a temporary PostgreSQL: the migrations make the schema
the models describe (from nothing, and again harmlessly on every start), each operation is whole
or absent, a saved combination never changes, and secrets and passwords are kept only hashed."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, inspect, select, text
from sqlalchemy.orm import Session

from wwm.portal.models import Base, Combination, CombinationServer, PortalRun, Server, User
from wwm.portal.store import Conflict, NotFound, PortalError, PortalStore, digest, urls_in
from wwm.store.engine import StoreError

TABLES = {"portal_settings", "portal_users", "portal_servers", "portal_combinations",
          "portal_combination_servers", "portal_runs", "portal_run_secrets", "portal_alembic_version",
          "portal_searches", "portal_search_trials", "portal_challenges", "portal_entries", "portal_evaluations",
          "portal_signin_failures"}
CARD = {"wwm": "1.0", "role": "world", "name": "Grid", "summary": "A grid world"}


def count(store: PortalStore, model: type) -> int:
    with Session(store.engine) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def test_migrations_make_the_models_schema_and_rerun_harmlessly(db_url):
    store = PortalStore(db_url)
    try:
        assert set(inspect(store.engine).get_table_names()) >= TABLES
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM portal_alembic_version")).scalar() == "0004"
            context = MigrationContext.configure(conn, opts={"compare_type": True,
                                                             "version_table": "portal_alembic_version"})
            assert compare_metadata(context, Base.metadata) == []     # migrations == models
        key = store.secret_key()
        store.add_server("http://a.example/", CARD)
    finally:
        store.close()
    again = PortalStore(db_url)                  # a restart: upgrade head is a no-op, data kept
    try:
        assert again.secret_key() == key
        assert [s.url for s in again.servers()] == ["http://a.example/"]
    finally:
        again.close()


def test_a_bad_database_url_is_one_clear_sentence():
    with pytest.raises(StoreError, match="no SQLAlchemy dialect for 'nonsense'"):
        PortalStore("nonsense://")
    with pytest.raises(StoreError, match="cannot open the portal's database at postgresql"):
        PortalStore("postgresql://me:secret@127.0.0.1:1/portal")


def test_servers_listed_by_role_search_and_world(db_url):
    store = PortalStore(db_url)
    try:
        world = store.add_server("http://w.example/", CARD)
        store.add_server("http://other-world.example/", {**CARD, "name": "Maze", "summary": "walls"})
        mind = store.add_server("http://m.example/", {"wwm": "1.0", "role": "mind", "name": "Seeker",
                                                      "summary": "finds 100% of the food_"})
        store.add_server("http://lonely.example/", {"wwm": "1.0", "role": "mind", "name": "Lonely"})
        assert [s.name for s in store.servers(role="world")] == ["Grid", "Maze"]
        assert [s.name for s in store.servers(search="SEEK")] == ["Seeker"]
        assert [s.name for s in store.servers(search="100%")] == ["Seeker"]       # % is a character
        assert [s.name for s in store.servers(search="d_")] == ["Seeker"]         # and _ too
        assert [s.name for s in store.servers(search="walls")] == ["Maze"]
        user = store.new_user().user
        store.save_combination(author_id=user.id, title="t", world_url=world.url,
                               document={"world": {"url": world.url}, "mind": {"url": mind.url}})
        assert [s.name for s in store.servers(world=world.url)] == ["Grid", "Seeker"]
        assert [c.title for c in store.combinations_with(mind.url)] == ["t"]
        assert store.combinations_with("http://lonely.example/") == []
        with pytest.raises(Conflict, match="registered already"):
            store.add_server("http://w.example/", CARD)
        assert count(store, Server) == 4
        store.record_check(world.id, up=False, error="down for a nap")
        checked = store.server(world.id)
        assert (checked.up, checked.last_error) == (False, "down for a nap")
        assert checked.last_checked is not None and checked.last_checked.tzinfo is not None
        with pytest.raises(NotFound):
            store.server(999)
    finally:
        store.close()


def test_combinations_are_whole_or_absent_and_never_change(db_url):
    store = PortalStore(db_url)
    try:
        user = store.new_user().user
        doc = {"world": {"url": "http://w.example/"},
               "mind": {"method": "maximize", "minds": [{"url": "http://a.example/", "args": {"x": 1}},
                                                        {"url": "https://b.example/"}]}}
        first = store.save_combination(author_id=user.id, title="First", document=doc,
                                       world_url="http://w.example/", explanation="*why*")
        assert urls_in(doc) == {"http://w.example/", "http://a.example/", "https://b.example/"}
        with pytest.raises(NotFound):                               # derived from nothing
            store.save_combination(author_id=user.id, title="x", document=doc,
                                   world_url="http://w.example/", derived_from=999)
        with pytest.raises(PortalError):                            # an author who does not exist
            store.save_combination(author_id=999, title="x", document=doc, world_url="http://w.example/")
        with pytest.raises(PortalError, match="needs a title"):
            store.save_combination(author_id=user.id, title="  ", document=doc, world_url="http://w.example/")
        assert count(store, Combination) == 1 and count(store, CombinationServer) == 3   # nothing half-stored
        second = store.save_combination(author_id=user.id, title="Second", document=doc,
                                        world_url="http://w.example/", derived_from=first.id)
        assert store.combination(second.id).derived_from == first.id
        with Session(store.engine) as s, pytest.raises(Exception, match="never changes"):
            saved = s.get(Combination, first.id)
            assert saved is not None
            saved.title = "Rewritten"
            s.commit()
        assert store.combination(first.id).title == "First"
    finally:
        store.close()


def test_secrets_and_passwords_are_kept_only_hashed(db_url):
    store = PortalStore(db_url)
    try:
        made = store.new_user()
        assert made.user.recovery_hash == digest(made.recovery_token)
        assert store.user_by_recovery(made.recovery_token).id == made.user.id
        newer = store.new_recovery(made.user.id)
        with pytest.raises(NotFound, match="not valid"):
            store.user_by_recovery(made.recovery_token)
        assert store.user_by_recovery(newer).id == made.user.id

        store.sign_up(made.user.id, "alice", "correct horse")
        with Session(store.engine) as s:
            row = s.get(User, made.user.id)
            assert row is not None and row.password_hash is not None
            assert row.password_hash.startswith("$argon2id$") and "correct horse" not in row.password_hash
            dumped = " ".join(str(v) for v in s.execute(text("SELECT * FROM portal_users")).one())
            assert "correct horse" not in dumped
        assert store.sign_in("alice", "correct horse").id == made.user.id
        for name, password in (("alice", "wrong password"), ("nobody", "correct horse")):
            with pytest.raises(PortalError, match="no account has that username and password"):
                store.sign_in(name, password)
        other = store.new_user().user
        with pytest.raises(Conflict, match="taken"):
            store.sign_up(other.id, "alice", "another password")
        with pytest.raises(PortalError, match="at least 8"):
            store.sign_up(other.id, "bob", "short")
        with pytest.raises(PortalError, match="username is 3 to 40"):
            store.sign_up(other.id, "<b>", "long enough")
        assert store.user(other.id).username is None             # nothing half-stored

        combination = store.save_combination(author_id=made.user.id, title="c", document={},
                                             world_url="http://w.example/")
        started = store.new_run(combination.id, made.user.id, 100)
        assert started.status == "starting" and not hasattr(started, "end_secret_hash")  # secrets: RunSecret
        store.link_run(started.id, 7)                          # its status is the run store's from now on
        assert (store.run(started.id).status, store.run(started.id).run_store_id) == ("started", 7)
        refused = store.new_run(combination.id, made.user.id, 100)
        store.set_run(refused.id, status="could not start", ended=True)
        store.link_run(refused.id, 8)                          # a late link keeps the portal's word
        assert (store.run(refused.id).status, store.run(refused.id).run_store_id) == ("could not start", 8)
        assert [r.id for r in store.runs_of(combination.id)] == [refused.id, started.id]
        with pytest.raises(NotFound):
            store.new_run(999, made.user.id, 1)
        assert count(store, PortalRun) == 2
    finally:
        store.close()
