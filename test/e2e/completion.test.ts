import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {runCli, tempConfigDir} from '../helpers/cli.js'

/** What bash offers for the words typed so far, from the generated completion function. */
function bashCompletions(functionFile: string, words: string[]): string[] {
  const script = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}
_paytx_autocomplete; printf '%s\\n' "\${COMPREPLY[@]}"`
  const result = spawnSync('bash', ['-c', script, 'bash', functionFile, ...words], {encoding: 'utf8', timeout: 15_000})
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.split('\n').filter(Boolean)
}

describe('shell completion', () => {
  it('bash: writes the completion function under PAYTX_CACHE_DIR; it completes real commands and flags', async () => {
    const configDir = tempConfigDir()
    const cacheDir = join(configDir, 'cache')
    const setup = await runCli(['autocomplete', 'bash'], {configDir})
    expect(setup.code).toBe(0)
    expect(setup.stdout).toContain('printf "$(paytx autocomplete script bash)" >> ~/.bashrc; source ~/.bashrc')

    const script = await runCli(['autocomplete', 'script', 'bash'], {configDir})
    expect(script.code).toBe(0)
    expect(script.stdout).toContain(`PAYTX_AC_BASH_SETUP_PATH=${join(cacheDir, 'autocomplete', 'bash_setup')}`)

    const functionFile = join(cacheDir, 'autocomplete', 'functions', 'bash', 'paytx.bash')
    expect(readFileSync(join(cacheDir, 'autocomplete', 'bash_setup'), 'utf8')).toContain(functionFile)
    expect(bashCompletions(functionFile, ['paytx', 'transaction', 'st'])).toEqual(['start', 'status'])
    expect(bashCompletions(functionFile, ['paytx', 'transaction', 'start', '--am'])).toEqual(['--amount'])
    expect(bashCompletions(functionFile, ['paytx', 'flow', '--wait-t'])).toEqual(['--wait-timeout'])
  })

  it('zsh: the completion function names the commands, their summaries and their flags', async () => {
    const configDir = tempConfigDir()
    const cacheDir = join(configDir, 'cache')
    const setup = await runCli(['autocomplete', 'zsh'], {configDir})
    expect(setup.code).toBe(0)
    expect(setup.stdout).toContain('printf "$(paytx autocomplete script zsh)" >> ~/.zshrc; source ~/.zshrc')

    const script = await runCli(['autocomplete', 'script', 'zsh'], {configDir})
    expect(script.code).toBe(0)
    expect(script.stdout).toContain(`PAYTX_AC_ZSH_SETUP_PATH=${join(cacheDir, 'autocomplete', 'zsh_setup')}`)

    const zshFunction = readFileSync(join(cacheDir, 'autocomplete', 'functions', 'zsh', '_paytx'), 'utf8')
    expect(zshFunction).toMatch(/^#compdef paytx/)
    expect(zshFunction).toContain('"start[Start a card, sofort or dummy transaction (POST /v1/transaction/start).]"')
    expect(zshFunction).toMatch(/--amount"\[Amount in minor units/)
    expect(zshFunction).toContain('"tokenize[')
    expect(readFileSync(join(cacheDir, 'autocomplete', 'zsh_setup'), 'utf8')).toContain(join(cacheDir, 'autocomplete', 'functions', 'zsh'))
  })

  it('PowerShell: set-up lines and a completion script', async () => {
    const configDir = tempConfigDir()
    const setup = await runCli(['autocomplete', 'powershell'], {configDir})
    expect(setup.code).toBe(0)
    expect(setup.stdout).toContain('Add-Content -Path $PROFILE -Value (Invoke-Expression -Command "paytx autocomplete script powershell")')
    const script = readFileSync(join(configDir, 'cache', 'autocomplete', 'functions', 'powershell', 'paytx.ps1'), 'utf8')
    expect(script).toContain('Register-ArgumentCompleter')
    expect(script).toContain('"transaction"')
  })

  it('a mistyped autocomplete gets a suggestion like any command, exit 2', async () => {
    const result = await runCli(['autocomplet', 'bash'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Hint: did you mean `./bin/run.js autocomplete`?')
  })

  it('an unknown shell is an input error, exit 2, and no cache is written', async () => {
    const configDir = tempConfigDir()
    const result = await runCli(['autocomplete', 'fish'], {configDir})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/fish/)
    expect(existsSync(join(configDir, 'cache', 'autocomplete'))).toBe(false)
  })
})
