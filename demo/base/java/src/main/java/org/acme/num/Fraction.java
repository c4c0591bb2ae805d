package org.acme.num;

/** An exact rational number in lowest terms with a positive denominator. */
public final class Fraction {
    private final long num;
    private final long den;

    /** Builds {@code num/den} reduced to lowest terms. */
    public Fraction(long num, long den) {
        if (den == 0) {
            throw new ArithmeticException("zero denominator");
        }
        long g = MathUtil.gcd(num, den);
        if (g == 0) {
            g = 1;
        }
        num /= g;
        den /= g;
        this.num = num;
        this.den = den;
    }

    /** The numerator (carries the sign). */
    public long numerator() {
        return num;
    }

    /** The denominator (always positive). */
    public long denominator() {
        return den;
    }

    /** The exact sum. */
    public Fraction plus(Fraction o) {
        long l = MathUtil.lcm(den, o.den);
        return new Fraction(num * (l / den) + o.num * (l / o.den), l);
    }

    /** The exact product. */
    public Fraction times(Fraction o) {
        return new Fraction(num * o.num, den * o.den);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fraction && ((Fraction) o).num == num && ((Fraction) o).den == den;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(num) * 31 + Long.hashCode(den);
    }

    @Override
    public String toString() {
        return num + "/" + den;
    }
}
