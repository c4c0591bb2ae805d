package org.acme.num;

import org.acme.text.Pad;

/** Amounts of money held as a whole number of cents, so sums stay exact. */
public final class Money {
    private Money() {
    }

    /** Parses {@code "12.34"}, {@code "-0.5"} or {@code "7"} into cents. */
    public static long parse(String text) {
        String s = text.trim();
        boolean negative = s.startsWith("-");
        if (negative) {
            s = s.substring(1);
        }
        int dot = s.indexOf('.');
        String whole = dot < 0 ? s : s.substring(0, dot);
        String frac = dot < 0 ? "" : s.substring(dot + 1);
        if (frac.length() > 2) {
            throw new IllegalArgumentException("more than two decimals: " + text);
        }
        if (frac.length() == 1) {
            frac = frac + "0";
        }
        long cents = Long.parseLong(whole.isEmpty() ? "0" : whole) * 100
                + (frac.isEmpty() ? 0 : Long.parseLong(frac));
        return cents;
    }

    /** Sum of several amounts. */
    public static long sum(long... amounts) {
        long total = 0;
        for (long a : amounts) {
            total = Math.addExact(total, a);
        }
        return total;
    }

    /** Formats cents as {@code "12.34"} or {@code "-0.05"}. */
    public static String format(long cents) {
        long abs = Math.abs(cents);
        String text = (abs / 100) + "." + Pad.left(Long.toString(abs % 100), 2, '0');
        return text;
    }

    /** A zero-padded fixed-width column, e.g. {@code column(-1250, 8) = "-0012.50"}. */
    public static String column(long cents, int width) {
        return Pad.left(format(cents), width - 1, '0');
    }
}
