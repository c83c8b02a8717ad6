"""Kaluki (Kalooki) rummy scoring and adjudication service."""
