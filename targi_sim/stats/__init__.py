"""Statistics with the independent unit made explicit (docs/report.md#statistics).

rates: cluster-robust rates and intervals over pairs or deals; sprt: the sequential
tests of `check` and `tune`. Imports nothing of targi_sim but `errors`.
"""

from .rates import (
    Z95,
    ClusteredRate,
    ClusterSums,
    cluster_index,
    clustered_rate,
    per_cluster,
    rate_of,
    rates_from_sums,
    ratio_variance,
)

__all__ = ["Z95", "ClusterSums", "ClusteredRate", "cluster_index", "clustered_rate",
           "per_cluster", "rate_of", "rates_from_sums", "ratio_variance"]
