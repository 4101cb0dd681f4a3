"""Leaderboard harnesses: evaluate a policy on a fixed suite and write results that replay."""
