import unittest

from acme_x import stats


class StatsTest(unittest.TestCase):
    def test_median_odd(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)

    def test_mean(self):
        self.assertEqual(stats.mean([1, 2, 3, 4]), 2.5)

    def test_variance(self):
        self.assertAlmostEqual(stats.variance([2, 4, 4, 4, 5, 5, 7, 9]), 32 / 7)

    def test_percentile_bounds(self):
        self.assertEqual(stats.percentile([5, 1, 3], 100), 5)
        with self.assertRaises(ValueError):
            stats.percentile([1], 0)


if __name__ == "__main__":
    unittest.main()
