/**
 * Interactive prompts (inquirer), loaded only when a person is asked something. Prompts are
 * drawn on stderr so that stdout stays data. Ctrl-C at a prompt is an interruption (exit 130).
 */
import {InterruptedError} from '../errors.js'

const context = () => ({input: process.stdin, output: process.stderr, clearPromptOnDone: false})

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

export async function ask(message: string, options: {default?: string; validate?: (value: string) => true | string} = {}): Promise<string> {
  const {input} = await import('./inquirer-prompts.js')
  return interruptible(input({message, default: options.default, validate: options.validate}, context()))
}

/**
 * Hidden input for secrets, PAN and CVV: nothing is echoed. A rejected answer is cleared, so the
 * next attempt starts empty (inquirer's password prompt keeps it, invisibly, in front of the retry).
 */
export async function askSecret(message: string, options: {validate?: (value: string) => true | string} = {}): Promise<string> {
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
}

export async function confirm(message: string, defaultAnswer = false): Promise<boolean> {
  const {confirm: ask} = await import('./inquirer-prompts.js')
  return interruptible(ask({message, default: defaultAnswer}, context()))
}

export async function choose<T extends string>(message: string, choices: readonly T[]): Promise<T> {
  const {select} = await import('./inquirer-prompts.js')
  return interruptible(select({message, choices: choices.map((value) => ({value, name: value}))}, context()))
}
