/**
 * The runner's secret masker, for a step run from a terminal: every value
 * registered (the secrets the command was given, each `::add-mask::` of the
 * step, a long stop-commands token) is replaced by `***` wherever it shows,
 * in the forms the runner also looks for (its encoders, from actions/runner):
 * docs/internals.md, "The terminal's secret masker".
 */
export class Masker {
  private readonly secrets = new Set<string>()

  /** Registers a secret (AddMaskCommandExtension / SecretMasker.AddValue). */
  add(value: string): void {
    if (value.trim() === '') return
    this.addForms(value)
    for (const line of value.split(/[\r\n]/)) {
      const trimmed = line.trim()
      if (trimmed !== '') this.addForms(trimmed)
    }
  }

  /** `text` with every registered secret replaced by `***`. */
  mask(text: string): string {
    if (this.secrets.size === 0) return text
    const ranges: Array<[number, number]> = []
    for (const secret of this.secrets) {
      for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
        ranges.push([at, at + secret.length])
      }
    }
    ranges.sort((a, b) => a[0] - b[0])
    // Overlapping or touching occurrences become one `***`.
    const merged: Array<[number, number]> = []
    for (const [start, end] of ranges) {
      const last = merged.at(-1)
      if (last && start <= last[1]) last[1] = Math.max(last[1], end)
      else merged.push([start, end])
    }
    let out = ''
    let from = 0
    for (const [start, end] of merged) {
      out += `${text.slice(from, start)}***`
      from = end
    }
    return out + text.slice(from)
  }

  private addForms(value: string): void {
    for (const form of encodings(value)) if (form !== '') this.secrets.add(form)
  }
}

function encodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const shifted = (shift: number): string =>
    (bytes.length > shift ? bytes.subarray(shift) : bytes).toString('base64')
  const json = JSON.stringify(value).slice(1, -1)
  const quoted = value.length > 8 && value.startsWith('"') && value.endsWith('"')
  return [
    value,
    shifted(0),
    shifted(1),
    shifted(2),
    value.replace(/"/g, '\\"'),
    value.replace(/'/g, "''"),
    json,
    // Uri.EscapeDataString leaves only RFC 3986's unreserved characters.
    encodeURIComponent(value).replace(
      /[!'()*]/g,
      c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
    ),
    value
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;'),
    quoted ? value.slice(1, -1) : ''
  ]
}
