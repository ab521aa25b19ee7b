"""Operations: the probes (/healthz, /readyz, /metrics), the JSON log, the solver's warm-up."""
