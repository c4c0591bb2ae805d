package org.acme.num;

/** Integer helpers shared by the number types. */
public final class MathUtil {
    private MathUtil() {
    }

    /** Greatest common divisor; never negative, and 0 only when both are 0. */
    public static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /** Least common multiple; 0 when either is 0. */
    public static long lcm(long a, long b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return Math.abs(a / gcd(a, b) * b);
    }
}
