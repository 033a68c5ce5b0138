"""Findings about the input itself: unreadable files, unused suppressions."""
