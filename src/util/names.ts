import { cut } from './shorten.js'

/**
 * Characters of a stage, test or job name wherever the step prints one: the
 * log, annotations, messages, the summary. Jenkins accepts names of any
 * length (a stage name is free text; 2,000 stages of 4 KB names make
 * megabytes); what identifies one is in its first words, and its page in
 * Jenkins has the whole.
 */
export const NAME_CHARS = 200

/** A name as printed: at most NAME_CHARS characters, an ellipsis marking the cut. */
export function shortName(name: string): string {
  return cut(name, NAME_CHARS)
}
