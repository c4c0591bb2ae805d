import unittest

from acme_x import record


class RecordTest(unittest.TestCase):
    def test_encodes_in_order(self):
        self.assertEqual(record.encode({"b": "2", "a": "1"}), "b=2;a=1")

    def test_escapes_separators(self):
        self.assertEqual(record.encode({"k": "a;b=c"}), "k=a\\;b\\=c")

    def test_round_trip(self):
        fields = {"name": "x;y", "eq": "1=1", "empty": ""}
        self.assertEqual(record.decode(record.encode(fields)), fields)

    def test_rejects_bare_words(self):
        with self.assertRaises(ValueError):
            record.decode("a=1;b")


if __name__ == "__main__":
    unittest.main()
