package org.acme.text;

/** Fixed-width padding for tabular output. */
public final class Pad {
    private Pad() {
    }

    /** Pads {@code s} on the left with {@code fill} up to {@code width} characters. */
    public static String left(String s, int width, char fill) {
        if (width < 0) {
            throw new IllegalArgumentException("widht must not be negative: " + width);
        }
        StringBuilder out = new StringBuilder(Math.max(width, s.length()));
        for (int i = s.length(); i < width; i++) {
            out.append(fill);
        }
        return out.append(s).toString();
    }

    /** Pads {@code s} on the right with {@code fill} up to {@code width} characters. */
    public static String right(String s, int width, char fill) {
        if (width < 0) {
            throw new IllegalArgumentException("width must not be negative: " + width);
        }
        StringBuilder out = new StringBuilder(Math.max(width, s.length())).append(s);
        while (out.length() < width) {
            out.append(fill);
        }
        return out.toString();
    }

    /** Centers {@code s} in {@code width} characters; odd padding goes to the right. */
    public static String center(String s, int width, char fill) {
        int total = Math.max(width - s.length(), 0);
        return right(left(s, s.length() + total / 2, fill), width, fill);
    }
}
