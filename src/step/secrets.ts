import * as core from '@actions/core'
import { whenCommandsRun } from '../runner/commands.js'
import { Redaction } from '../util/redaction.js'

/**
 * The step's secrets: every secret input (inputs.ts getSettings) and every
 * secret Jenkins hands over (a crumb, a session cookie: create-client.ts).
 * The runner masks them in the log; it cannot mask what the step sends
 * through the API (a pull request comment, a commit status), and annotations
 * and the summary are the step's to keep clean, so every text the step
 * writes goes through `redactSecrets` too (step-io.ts, core-logger.ts,
 * GithubReports). One list for the step, as the runner's masker is one.
 */
const secrets = new Redaction()

/** Registers a secret: redacted from now on, and masked by the runner (once commands run: an `::add-mask::` while the console prints would show the value). */
export function maskSecret(value: string): void {
  if (value === '') return
  secrets.add(value)
  whenCommandsRun(() => core.setSecret(value))
}

/** `text` without any secret of the step (util/redaction.ts). */
export function redactSecrets(text: string): string {
  return secrets.redact(text)
}
