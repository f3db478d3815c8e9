"""Input validation and estimator helpers shared by fairdp's estimators (internal)."""
