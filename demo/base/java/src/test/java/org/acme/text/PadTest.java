package org.acme.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PadTest {
    @Test
    void padsLeft() {
        assertEquals("  ab", Pad.left("ab", 4, ' '));
        assertEquals("abcde", Pad.left("abcde", 4, ' '));
    }

    @Test
    void padsRight() {
        assertEquals("ab..", Pad.right("ab", 4, '.'));
    }

    @Test
    void centers() {
        assertEquals("-ab--", Pad.center("ab", 5, '-'));
    }
}
