"""API keys go to the keyring, or stay in memory for the session with a plain notice."""

from __future__ import annotations

import uuid

import keyring
import pytest
from keyring.backends import chainer, fail, null
from keyring.errors import KeyringError, PasswordSetError

from app.core.secrets import SESSION_ONLY, KeyChoice, SecretStore, known_secrets, register_secret, resolve_api_key
from tests.support.memory_keyring import MemoryKeyring


class BrokenKeyring(MemoryKeyring):
    """A keyring that exists but fails when used (locked, D-Bus gone, …)."""

    def get_password(self, service, username):
        raise KeyringError("the keyring is locked")

    def set_password(self, service, username, password):
        raise PasswordSetError("the keyring is locked")


@pytest.fixture
def use_backend():
    """Install a keyring backend for one test; the previous one is restored afterwards."""
    previous = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring(use_backend) -> MemoryKeyring:
    backend = MemoryKeyring()
    use_backend(backend)
    return backend


@pytest.fixture
def service() -> str:
    """A service name of its own per test, so session-only keys of other tests are not seen."""
    return f"AgentDeskTest-{uuid.uuid4().hex[:8]}"


def new_key() -> str:
    return f"sk-test-{uuid.uuid4().hex}"


def test_a_working_keyring_stores_the_key(memory_keyring, service):
    store = SecretStore(service)
    key = new_key()
    assert store.keyring_available
    assert store.notice == ""
    where = store.set("default", key)
    assert where == store.location() and where.startswith("the system keyring (")
    assert memory_keyring.passwords[(service, "default")] == key
    assert SecretStore(service).get("default") == key


def test_the_location_names_the_backend_module(memory_keyring, service):
    assert SecretStore(service).location() == "the system keyring (memory_keyring)"


def test_a_pasted_key_is_trimmed_and_an_empty_one_refused(memory_keyring, service):
    store = SecretStore(service)
    key = new_key()
    store.set("default", f"  {key}\n")
    assert store.get("default") == key
    with pytest.raises(ValueError, match="empty"):
        store.set("default", "  \n")


def test_delete_forgets_the_key_and_deleting_twice_is_fine(memory_keyring, service):
    store = SecretStore(service)
    store.set("default", new_key())
    store.delete("default")
    store.delete("default")
    assert store.get("default") is None
    assert not memory_keyring.passwords


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring()], ids=["fail", "null"])
def test_without_a_keyring_the_key_is_kept_for_the_session_with_a_notice(use_backend, service, backend):
    use_backend(backend)
    store = SecretStore(service)
    key = new_key()
    assert not store.keyring_available
    assert store.set("default", key) == SESSION_ONLY == "this session only (no keyring is available on this system)"
    assert store.get("default") == key
    assert SecretStore(service).get("default") == key   # the whole app shares the session copy
    for words in ("session only", "gnome-keyring", "KWallet", "OPENAI_API_KEY"):
        assert words in store.notice
    store.delete("default")
    assert store.get("default") is None


def test_a_chainer_without_backends_counts_as_no_keyring(use_backend, service, monkeypatch):
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    use_backend(chainer.ChainerBackend())
    assert not SecretStore(service).keyring_available


def test_a_chainer_with_a_real_backend_is_used(use_backend, service, monkeypatch):
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [MemoryKeyring()])
    use_backend(chainer.ChainerBackend())
    store = SecretStore(service)
    assert store.keyring_available
    assert store.location() == "the system keyring (memory_keyring)"


def test_a_keyring_that_fails_when_used_falls_back_to_the_session(use_backend, service, caplog):
    use_backend(BrokenKeyring())
    store = SecretStore(service)
    assert store.keyring_available   # nothing is known to be wrong until it is used
    key = new_key()
    assert store.set("default", key) == SESSION_ONLY
    assert "session only" in store.notice
    assert store.get("default") == key
    assert key not in caplog.text


def test_a_keyring_that_fails_on_reading_falls_back_too(use_backend, service):
    use_backend(BrokenKeyring())
    store = SecretStore(service)
    assert store.get("default") is None
    assert not store.keyring_available and store.notice


TO_OPENAI = {"goes_to": "https://api.openai.com", "key_origin": "https://api.openai.com"}


def test_resolve_prefers_the_environment_then_the_store(memory_keyring, service):
    store = SecretStore(service)
    env_key, stored_key = new_key(), new_key()
    store.set("default", stored_key)
    assert resolve_api_key("default", {}, store=store, **TO_OPENAI) == KeyChoice(stored_key, store.location())
    env = {"OPENAI_API_KEY": env_key}
    assert resolve_api_key("default", env, store=store, **TO_OPENAI) == KeyChoice(
        env_key, "the OPENAI_API_KEY environment variable")


def test_resolve_without_any_key_says_where_to_put_one(memory_keyring, service):
    choice = resolve_api_key("default", {}, store=SecretStore(service), **TO_OPENAI)
    assert choice.key is None and not choice.withheld
    assert "OPENAI_API_KEY" in choice.source


def test_every_key_handed_out_is_registered_for_redaction(memory_keyring, service):
    store = SecretStore(service)
    stored, typed_elsewhere, from_env = new_key(), new_key(), new_key()
    store.set("default", stored)
    memory_keyring.passwords[(service, "other")] = typed_elsewhere
    assert store.get("other") == typed_elsewhere
    resolve_api_key("missing", {"OPENAI_API_KEY": from_env}, store=store, **TO_OPENAI)
    assert {stored, typed_elsewhere, from_env} <= set(known_secrets())


def test_short_values_are_not_registered():
    register_secret("none")
    register_secret("")
    register_secret(None)
    assert "none" not in known_secrets() and "" not in known_secrets()


def test_known_secrets_lists_longer_ones_first():
    short, long = "abcdefgh12", "abcdefgh12-and-more"
    register_secret(short)
    register_secret(long)
    order = known_secrets()
    assert order.index(long) < order.index(short)


@pytest.mark.parametrize("backend_kind", ["memory", "fail"])
def test_repr_and_str_never_show_the_key(use_backend, service, backend_kind):
    use_backend(MemoryKeyring() if backend_kind == "memory" else fail.Keyring())
    store = SecretStore(service)
    key = new_key()
    store.set("default", key)
    for text in (repr(store), str(store), store.notice, store.location()):
        assert key not in text
    assert service in repr(store)
