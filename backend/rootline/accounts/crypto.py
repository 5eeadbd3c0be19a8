"""Secrets and password hashes.

High-entropy secrets (session cookies, one-time links, API tokens, share tokens) are 256
random bits, stored as their SHA-256 hex digest: a lookup by digest needs no slow hash and
a leaked table holds nothing usable. Passwords are low-entropy and get argon2id.
"""

from __future__ import annotations

import hashlib
import secrets
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def new_secret(prefix: str = "") -> str:
    """32 random bytes, base64url, after ``prefix``."""
    return prefix + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """The stored form of a high-entropy secret."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


@lru_cache(maxsize=1)
def _decoy_hash() -> str:
    return _hasher.hash(secrets.token_urlsafe(16))


def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` matches; as slow for an unknown user as for a known one."""
    try:
        if password_hash is None:
            _hasher.verify(_decoy_hash(), password)
            return False
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
