package com.example.calc;

/** Text that is not a number, with the position of the first character that is not part of one. */
public final class ParseException extends IllegalArgumentException {
    private final int position;

    public ParseException(String message, int position) {
        super(message);
        this.position = position;
    }

    public int getPosition() {
        return position;
    }
}
