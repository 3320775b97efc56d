package com.example.calc;

/**
 * Reads numbers from text: digits, one decimal point, a leading minus (ASCII
 * or U+2212). Anything else is refused with the position of the first
 * character that is not part of a number.
 */
public final class Parser {
    private final String text;
    private int position;

    private Parser(String text) {
        this.text = text;
    }

    /**
     * Parses the whole text as one number.
     *
     * @param text the text, surrounding whitespace allowed
     * @return the number
     * @throws ParseException when the text is empty or is not a number
     */
    public static double parse(String text) {
        Parser parser = new Parser(text.strip());
        return parser.parseAll();
    }

    private double parseAll() {
        if (text.isEmpty()) throw new ParseException("Empty input", 0);
        boolean negative = minus();
        double value = number();
        if (position < text.length()) throw unexpected();
        return negative ? -value : value;
    }

    /** A leading minus sign: ASCII '-' or Unicode's minus sign, U+2212. */
    private boolean minus() {
        if (position < text.length()) {
            char c = text.charAt(position);
            if (c == '-' || c == '\u2212') {
                position++;
                return true;
            }
        }
        return false;
    }

    /** Whether the next character is a digit. */
    private boolean digit() {
        return position < text.length() && Character.isDigit(text.charAt(position));
    }

    /** The refusal of the character at the current position. */
    private ParseException unexpected() {
        return new ParseException(
                "Unexpected character '" + text.charAt(position) + "' at position " + position
                        + "\nexpected a digit or end of input",
                position);
    }

    /**
     * Digits, with at most one decimal point between digits.
     *
     * <p>Scientific notation ("1e3") is not read yet: its 'e' is refused as an
     * unexpected character, which is what the test "parses \"1e3\"
     * [scientific]" reports.
     */
    private double number() {
        int start = position;
        while (digit()) {
            position++;
        }
        if (position < text.length() && text.charAt(position) == '.') {
            position++;
            if (!digit()) {
                throw unexpected();
            }
            while (digit()) {
                position++;
            }
        }
        if (position == start) {
            throw unexpected();
        }
        boolean ended = position == text.length();
        if (!ended) {
            // Whatever follows a number must end the input: here the 'e' of "1e3".
            throw unexpected();
        }
        return Double.parseDouble(text.substring(start, position));
    }
}
