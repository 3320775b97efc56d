/**
 * Thrown for a bad input; the message names the input and the expected form,
 * and never contains a secret (token, password, github-token).
 */
export class InputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InputError'
  }
}
