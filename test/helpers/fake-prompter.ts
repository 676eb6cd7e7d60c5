/**
 * A person at the terminal, scripted: each question the command asks is matched, in order, with
 * the next scripted step, whose answers are typed one after another until the prompt's check
 * accepts one (as a person retypes a refused answer). Every question, answer and refusal is
 * recorded, so a test can see which prompt refused what, and in which order things were asked.
 */
import type {AnswerCheck, Prompter} from '../../src/terminal/prompts.js'

export interface ScriptedStep {
  /** The question this step answers. */
  question: RegExp
  /** Typed in turn; the first the prompt's check accepts is the answer. */
  answers: (string | boolean)[]
}

export interface PromptEvent {
  question: string
  kind: 'ask' | 'secret' | 'confirm' | 'choose'
  typed: string | boolean
  /** The check's problem, shown under the prompt; undefined when the answer was taken. */
  refused?: string
}

export function fakePrompter(script: ScriptedStep[]): Prompter & {events: PromptEvent[]; asked: () => string[]} {
  const steps = [...script]
  const events: PromptEvent[] = []
  const next = (question: string): ScriptedStep => {
    const step = steps.shift()
    if (!step) throw new Error(`the command asked "${question}", which the script does not expect`)
    if (!step.question.test(question)) throw new Error(`the command asked "${question}"; the script expected ${step.question}`)
    return step
  }
  const answer = (kind: PromptEvent['kind'], question: string, validate?: AnswerCheck): string => {
    for (const typed of next(question).answers) {
      const verdict = validate ? validate(String(typed)) : true
      events.push({question, kind, typed, ...(verdict === true ? {} : {refused: verdict})})
      if (verdict === true) return String(typed)
    }
    throw new Error(`every scripted answer to "${question}" was refused`)
  }
  return {
    events,
    asked: () => [...new Set(events.map((event) => event.question))],
    ask: async (question, options = {}) => answer('ask', question, options.validate),
    askSecret: async (question, options = {}) => answer('secret', question, options.validate),
    confirm: async (question) => {
      const typed = next(question).answers[0] === true
      events.push({question, kind: 'confirm', typed})
      return typed
    },
    choose: async <T extends string>(question: string, choices: readonly T[]) => {
      const typed = String(next(question).answers[0])
      if (!choices.includes(typed as T)) throw new Error(`"${typed}" is not one of ${choices.join(', ')}`)
      events.push({question, kind: 'choose', typed})
      return typed as T
    },
  }
}
