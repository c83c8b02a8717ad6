"""What every request passes through, whatever resource answers it (the language it is
answered in, today; body guards, ids, limits and metrics belong here too)."""
