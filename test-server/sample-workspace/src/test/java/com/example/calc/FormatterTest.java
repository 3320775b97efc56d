package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Formatter; "formats thousands with a separator" fails on purpose (see Formatter.format). */
class FormatterTest {
    private final Formatter formatter = new Formatter();

    @Test
    @DisplayName("formats small numbers as they are")
    void formatsSmallNumbers() {
        assertEquals("999", formatter.format(999));
    }

    @Test
    @DisplayName("formats thousands with a separator")
    void formatsThousands() {
        assertEquals("1,000", formatter.format(1000));
    }
}
