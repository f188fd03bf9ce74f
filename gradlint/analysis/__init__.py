"""Shared static analysis: names, scopes, shapes, torch knowledge, the dataflow interpreter."""
