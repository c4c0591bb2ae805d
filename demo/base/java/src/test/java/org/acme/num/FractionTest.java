package org.acme.num;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FractionTest {
    @Test
    void reduces() {
        assertEquals("2/3", new Fraction(4, 6).toString());
    }

    @Test
    void adds() {
        assertEquals(new Fraction(5, 6), new Fraction(1, 2).plus(new Fraction(1, 3)));
    }

    @Test
    void multiplies() {
        assertEquals(new Fraction(1, 3), new Fraction(2, 3).times(new Fraction(1, 2)));
    }

    @Test
    void lcmOfCoprimes() {
        assertEquals(12, MathUtil.lcm(3, 4));
    }
}
