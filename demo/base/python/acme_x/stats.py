"""Summary statistics for small samples (report footers, benchmark tables)."""

import math


def median(xs):
    """The middle value; the mean of the two middle values for an even count."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of empty data")
    return s[n // 2]


def mean(xs):
    """Arithmetic mean."""
    if not xs:
        raise ValueError("mean of empty data")
    return math.fsum(xs) / len(xs)


def variance(xs):
    """Sample variance (n - 1 in the denominator)."""
    if len(xs) < 2:
        raise ValueError("variance needs at least two values")
    m = mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)


def stdev(xs):
    """Sample standard deviation."""
    return math.sqrt(variance(xs))


def percentile(xs, p):
    """Nearest-rank percentile: the smallest value with at least p% of the data at or below it."""
    if not 0 < p <= 100:
        raise ValueError("percentile must be in (0, 100]: %r" % p)
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of empty data")
    rank = int(p / 100 * len(s))
    return s[max(rank, 1) - 1]
