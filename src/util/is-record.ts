/** Whether `value` is a JSON object (not null, not a list): where every decode of a parsed answer, event or file starts. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
