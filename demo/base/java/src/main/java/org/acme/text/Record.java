package org.acme.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The acme record format: {@code key=value;key=value}, with {@code \} escaping the
 * separators. The Python package {@code acme_x.record} reads and writes the same format.
 */
public final class Record {
    private Record() {
    }

    /** Encodes the fields in iteration order. */
    public static String encode(Map<String, String> fields) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            if (out.length() > 0) {
                out.append(';');
            }
            out.append(escape(e.getKey())).append('=').append(escape(e.getValue()));
        }
        return out.toString();
    }

    /** Decodes a record; field order is kept. */
    public static Map<String, String> decode(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (text.isEmpty()) {
            return fields;
        }
        for (String pair : split(text, ';')) {
            List<String> kv = split(pair, '=');
            if (kv.size() != 2) {
                throw new IllegalArgumentException("not a key=value field: " + pair);
            }
            fields.put(unescape(kv.get(0)), unescape(kv.get(1)));
        }
        return fields;
    }

    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ';' || c == '=') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                i++;
                c = s.charAt(i);
            }
            out.append(c);
        }
        return out.toString();
    }

    /** Splits at unescaped {@code sep}, keeping escapes for the later unescape. */
    static List<String> split(String s, char sep) {
        List<String> parts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                cur.append(c).append(s.charAt(i + 1));
                i++;
            } else if (c == sep) {
                parts.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        parts.add(cur.toString());
        return parts;
    }
}
