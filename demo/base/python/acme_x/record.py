"""The acme record format: ``key=value;key=value`` with backslash escapes.

The Java class ``org.acme.text.Record`` reads and writes the same format.
"""


def encode(fields):
    """Encode a mapping in iteration order."""
    return ";".join(escape(k) + "=" + escape(v) for k, v in fields.items())


def decode(text):
    """Decode a record into a dict, keeping field order."""
    fields = {}
    if not text:
        return fields
    for pair in split(text, ";"):
        kv = split(pair, "=")
        if len(kv) != 2:
            raise ValueError("not a key=value field: %r" % pair)
        fields[unescape(kv[0])] = unescape(kv[1])
    return fields


def escape(s):
    out = []
    for c in s:
        if c in ";=":
            out.append("\\")
        out.append(c)
    return "".join(out)


def unescape(s):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            i += 1
            c = s[i]
        out.append(c)
        i += 1
    return "".join(out)


def split(s, sep):
    """Split at unescaped ``sep``, keeping escapes for the later unescape."""
    parts = []
    cur = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i : i + 2])
            i += 2
            continue
        if c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts
