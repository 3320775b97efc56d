/**
 * Values Jenkins would refuse or silently change, refused before anything
 * is sent, from the job's parameter definitions the step reads anyway:
 * several values for a parameter that takes one (a 500), a boolean that is
 * neither true nor false (run as false), a choice the list lacks (a 500).
 * Only the types whose handling is known from their source are checked;
 * another plugin's parameter gets what the user gave. Which types take
 * several values, and why: docs/parameters.md.
 */
import type { BuildParameters, JobInfo, ParameterDefinition } from '../model/types.js'
import { JenkinsError } from '../transport/errors.js'
import { shortName } from '../../util/names.js'

/**
 * Types that take exactly one value from `buildWithParameters`, by the
 * `type` Jenkins exports (the class's simple name): they extend
 * SimpleParameterDefinition, whose createValue(StaplerRequest) throws
 * "Illegal number of parameter values" for more than one (a 500). Core's,
 * the Credentials plugin's, the Node and Label Parameter plugin's, and
 * Active Choices' (a multi-select among them takes one comma-joined value).
 */
const SINGLE_VALUE_TYPES: Readonly<Record<string, string>> = {
  StringParameterDefinition: 'a string parameter',
  TextParameterDefinition: 'a text parameter',
  BooleanParameterDefinition: 'a boolean parameter',
  ChoiceParameterDefinition: 'a choice parameter',
  PasswordParameterDefinition: 'a password parameter',
  RunParameterDefinition: 'a run parameter',
  CredentialsParameterDefinition: 'a credentials parameter',
  NodeParameterDefinition: 'a node parameter',
  LabelParameterDefinition: 'a label parameter',
  ChoiceParameter: 'an Active Choices parameter',
  CascadeChoiceParameter: 'an Active Choices parameter',
  DynamicReferenceParameter: 'an Active Choices parameter'
}

/** Choices named in a refusal; a job may list hundreds. */
const MAX_CHOICES_SHOWN = 20

/** Refuses, naming the parameter and what it accepts, a value Jenkins would refuse or change. */
export function checkParameterValues(info: JobInfo, name: string, params: BuildParameters): void {
  for (const definition of info.parameterDefinitions) {
    const value = params[definition.name]
    if (value === undefined) continue
    const problem =
      typeof value === 'string'
        ? oneValueProblem(definition, value)
        : valuesProblem(definition, value)
    if (problem !== undefined) {
      throw new JenkinsError(
        'bad-request',
        `Parameter '${shortName(definition.name)}' of job '${name}' ${problem}. Nothing was triggered.`
      )
    }
  }
}

/**
 * Several values for a parameter that takes one: Jenkins refuses the form's
 * repeated fields with a 500, and a multipart upload (one part a name)
 * would hand it the values joined with ',', which the user did not write.
 */
function valuesProblem(
  definition: ParameterDefinition,
  values: readonly string[]
): string | undefined {
  const kind = SINGLE_VALUE_TYPES[definition.type ?? '']
  if (kind === undefined) return undefined
  // cast: there is one value.
  if (values.length === 1) return oneValueProblem(definition, values[0] as string)
  return `is given ${values.length} values, but ${kind} takes one (give one value; a parameter that splits its value, such as a multi-select Active Choices parameter, takes them joined: 'a,b')`
}

/**
 * Jenkins reads a boolean with Boolean.parseBoolean (BooleanParameterDefinition
 * .createValue): `true` in any case is true, and anything else is false,
 * without a word. Only `true` and `false` (in any case) are taken. It refuses
 * a value its ChoiceParameterDefinition does not list with a 500
 * (IllegalArgumentException "Illegal choice for parameter NAME: v",
 * jenkins-api.md 3.2). Only core's choice parameter: plugins' choice
 * parameters (Active Choices, Extended Choice) may accept other values.
 */
function oneValueProblem(definition: ParameterDefinition, value: string): string | undefined {
  if (definition.type === 'BooleanParameterDefinition' && !/^(true|false)$/i.test(value)) {
    return `is '${shortName(value)}', but a boolean parameter takes true or false: Jenkins would run it as false`
  }
  const choices = definition.type === 'ChoiceParameterDefinition' ? definition.choices : undefined
  if (!choices?.length || choices.includes(value)) return undefined
  const shown = choices.slice(0, MAX_CHOICES_SHOWN).map(choice => `'${shortName(choice)}'`)
  const more = choices.length > shown.length ? ` and ${choices.length - shown.length} more` : ''
  return `is '${shortName(value)}', which is not one of its choices: ${shown.join(', ')}${more}`
}
