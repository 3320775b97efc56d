package com.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Calculator's arithmetic; "divides by zero" fails on purpose (see Calculator.divide). */
class CalculatorTest {
    private final Calculator calculator = new Calculator();

    @Test
    @DisplayName("adds")
    void adds() {
        assertEquals(5, calculator.add(2, 3));
    }

    @Test
    @DisplayName("subtracts")
    void subtracts() {
        assertEquals(-1, calculator.subtract(2, 3));
    }

    @Test
    @DisplayName("multiplies")
    void multiplies() {
        assertEquals(6, calculator.multiply(2, 3));
    }

    @Test
    @Disabled("banker's rounding is not implemented yet")
    @DisplayName("rounds half even")
    void roundsHalfEven() {
        assertEquals(2, Math.rint(2.5));
    }

    @Test
    @DisplayName("divides by zero")
    void dividesByZero() {
        assertThrows(ArithmeticException.class, () -> calculator.divide(1, 0));
    }
}
