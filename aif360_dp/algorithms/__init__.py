"""DP counterparts of AIF360's mitigation algorithms."""
