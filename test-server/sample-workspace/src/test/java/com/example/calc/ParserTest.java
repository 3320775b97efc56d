package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Parser; "parses \"1e3\" [scientific]" fails on purpose (see Parser.number). */
class ParserTest {
    @Test
    @DisplayName("parses integers")
    void parsesIntegers() {
        assertEquals(42, Parser.parse("42"));
    }

    @Test
    @DisplayName("parses decimals")
    void parsesDecimals() {
        assertEquals(4.25, Parser.parse("4.25"));
    }

    @Test
    @DisplayName("rejects empty input")
    void rejectsEmptyInput() {
        assertThrows(ParseException.class, () -> Parser.parse(""));
    }

    @Test
    @DisplayName("rejects letters")
    void rejectsLetters() {
        assertThrows(ParseException.class, () -> Parser.parse("abc"));
    }

    @Test
    @DisplayName("keeps whitespace")
    void keepsWhitespace() {
        assertEquals(7, Parser.parse("  7 "));
    }

    @Test
    @DisplayName("handles unicode minus")
    void handlesUnicodeMinus() {
        assertEquals(-3, Parser.parse("\u22123"));
    }

    /**
     * Scientific notation, which Parser does not read yet: this test fails
     * with the ParseException that Parser.number throws at the 'e'.
     */
    @Test
    @DisplayName("parses \"1e3\" [scientific]")
    void parsesScientific() {
        // 1e3 is a thousand: 1 times 10 to the power 3.
        // (Double.parseDouble reads it; Parser refuses the 'e'.)
        double thousand = 1000;
        assertEquals(thousand, Parser.parse("1e3"));
    }
}
