package org.acme.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordTest {
    private static Map<String, String> fields(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void encodesInOrder() {
        assertEquals("b=2;a=1", Record.encode(fields("b", "2", "a", "1")));
    }

    @Test
    void escapesSeparators() {
        assertEquals("k=a\\;b\\=c", Record.encode(fields("k", "a;b=c")));
    }

    @Test
    void roundTrips() {
        Map<String, String> m = fields("name", "x;y", "eq", "1=1", "empty", "");
        assertEquals(m, Record.decode(Record.encode(m)));
    }
}
