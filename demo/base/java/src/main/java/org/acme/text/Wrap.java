package org.acme.text;

import java.util.ArrayList;
import java.util.List;

/** Greedy word wrapping for fixed-width terminal and report output. */
public final class Wrap {
    private Wrap() {
    }

    /**
     * Splits {@code text} into lines of at most {@code width} characters, breaking at
     * whitespace. A word longer than the width gets a line of its own.
     */
    public static List<String> wrap(String text, int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width must be positive: " + width);
        }
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.trim().split("\\s+")) {
            if (word.isEmpty()) {
                continue;
            }
            int needed = line.length() == 0 ? word.length() : line.length() + 1 + word.length();
            if (needed < width) {
                if (line.length() > 0) {
                    line.append(' ');
                }
                line.append(word);
                continue;
            }
            if (line.length() > 0) {
                lines.add(line.toString());
            }
            line.setLength(0);
            line.append(word);
        }
        if (line.length() > 1) {
            lines.add(line.toString());
        }
        return lines;
    }

    /** The wrapped lines joined with newlines, for printing. */
    public static String fill(String text, int width) {
        return String.join("\n", wrap(text, width));
    }

    /** Prefixes every line of {@code lines} with {@code prefix}. */
    public static List<String> indent(List<String> lines, String prefix) {
        List<String> out = new ArrayList<>(lines.size());
        for (String l : lines) {
            out.add(prefix + l);
        }
        return out;
    }
}
