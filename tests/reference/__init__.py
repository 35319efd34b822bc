"""Reference engines the games are held to in the tests."""
