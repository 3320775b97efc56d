package com.example.calc;

/** The arithmetic the sample tests exercise. */
public final class Calculator {
    public double add(double a, double b) {
        return a + b;
    }

    public double subtract(double a, double b) {
        return a - b;
    }

    public double multiply(double a, double b) {
        return a * b;
    }

    /** The bug CalculatorTest finds: dividing by zero gives Infinity instead of throwing. */
    public double divide(double a, double b) {
        return a / b;
    }
}
