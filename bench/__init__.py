"""HTTP load benchmarks and engine micro-benchmarks (``make bench``; see docs/bench.md)."""
