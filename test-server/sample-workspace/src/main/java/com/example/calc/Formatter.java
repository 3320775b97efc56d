package com.example.calc;

/** Formats results for people. */
public final class Formatter {
    /** The bug FormatterTest finds: no thousands separator. */
    public String format(long value) {
        return Long.toString(value);
    }
}
