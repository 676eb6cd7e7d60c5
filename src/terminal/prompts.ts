/**
 * Interactive prompts (inquirer), loaded only when a person is asked something. Prompts are
 * drawn on the command's stderr and read from its stdin, so that stdout stays data. Ctrl-C at a
 * prompt is an interruption (exit 130). A command asks through a Prompter: this terminal's, or
 * a test's fake from the command context.
 */
import {InterruptedError} from '../errors.js'

/** A check of one answer, run as it is submitted: true, or the problem shown under the prompt. */
export type AnswerCheck = (value: string) => true | string

export interface AskOptions {
  default?: string
  validate?: AnswerCheck
}

/** How a command asks a person: each answer is checked as it is typed, and asked again until it passes. */
export interface Prompter {
  ask(message: string, options?: AskOptions): Promise<string>
  /** Hidden input for secrets, PAN and CVV: nothing is echoed. */
  askSecret(message: string, options?: Pick<AskOptions, 'validate'>): Promise<string>
  confirm(message: string, defaultAnswer?: boolean): Promise<boolean>
  choose<T extends string>(message: string, choices: readonly T[]): Promise<T>
}

/** The streams a prompt is drawn on. */
export interface PromptStreams {
  stdin: NodeJS.ReadableStream
  stderr: NodeJS.WritableStream
}

async function interruptible<T>(prompt: Promise<T>): Promise<T> {
  try {
    return await prompt
  } catch (error) {
    if ((error as Error)?.name === 'ExitPromptError' || (error as Error)?.name === 'AbortPromptError') {
      throw new InterruptedError('Interrupted at a prompt; nothing was sent.')
    }
    throw error
  }
}

/** The prompts of a real terminal, drawn on `streams`. */
export function terminalPrompter(streams: PromptStreams): Prompter {
  const context = () => ({input: streams.stdin, output: streams.stderr, clearPromptOnDone: false})
  return {
    async ask(message, options = {}) {
      const {input} = await import('./inquirer-prompts.js')
      return interruptible(input({message, default: options.default, validate: options.validate}, context()))
    },
    // A rejected secret is cleared, so the next attempt starts empty (inquirer's password prompt
    // keeps it, invisibly, in front of the retry).
    async askSecret(message, options = {}) {
      const {input} = await import('./inquirer-prompts.js')
      return interruptible(
        input(
          {
            message,
            validate: options.validate,
            transformer: (_value, {isFinal}) => (isFinal ? '' : '[input is hidden]'),
            theme: {validationFailureMode: 'clear'},
          },
          context(),
        ),
      )
    },
    async confirm(message, defaultAnswer = false) {
      const {confirm: ask} = await import('./inquirer-prompts.js')
      return interruptible(ask({message, default: defaultAnswer}, context()))
    },
    async choose(message, choices) {
      const {select} = await import('./inquirer-prompts.js')
      return interruptible(select({message, choices: choices.map((value) => ({value, name: value}))}, context()))
    },
  }
}
