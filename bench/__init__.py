"""Benchmarks: each prints its figure beside the machine's own ceilings measured in the same run."""
