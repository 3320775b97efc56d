/**
 * A console line as the failure message quotes it (outcome/report.ts) and as
 * the terminal compares it with what it just showed (cli/render.ts): colours
 * and other escape sequences removed (they mean nothing in an annotation),
 * and the control characters but TAB and the line break dropped.
 */

// CSI and other ESC sequences.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g

/** `line` without escape sequences and control characters. */
export function plainConsoleLine(line: string): string {
  return line.replace(ANSI, '').replace(CONTROL, '')
}
