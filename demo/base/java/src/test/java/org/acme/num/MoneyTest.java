package org.acme.num;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MoneyTest {
    @Test
    void parsesPositiveAmounts() {
        assertEquals(1234, Money.parse("12.34"));
        assertEquals(50, Money.parse(".5"));
        assertEquals(700, Money.parse(" 7 "));
    }

    @Test
    void rejectsThreeDecimals() {
        assertThrows(IllegalArgumentException.class, () -> Money.parse("1.234"));
    }

    @Test
    void formatsPositiveAmounts() {
        assertEquals("12.34", Money.format(1234));
        assertEquals("0.05", Money.format(5));
    }

    @Test
    void sums() {
        assertEquals(300, Money.sum(100, 150, 50));
    }
}
