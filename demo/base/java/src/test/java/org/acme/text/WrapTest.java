package org.acme.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class WrapTest {
    @Test
    void breaksAtSpaces() {
        assertEquals(List.of("the quick", "brown fox"), Wrap.wrap("the quick brown fox", 10));
    }

    @Test
    void longWordGetsItsOwnLine() {
        assertEquals(List.of("a", "abcdefghij", "bc"), Wrap.wrap("a abcdefghij bc", 4));
    }

    @Test
    void rejectsZeroWidth() {
        assertThrows(IllegalArgumentException.class, () -> Wrap.wrap("x", 0));
    }

    @Test
    void indentsEveryLine() {
        assertEquals(List.of("> a", "> b"), Wrap.indent(List.of("a", "b"), "> "));
    }
}
