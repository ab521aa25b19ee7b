"""Operations: the probes (/healthz, /readyz), Prometheus metrics and /metrics."""
