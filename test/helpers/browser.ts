/**
 * Real Chromium for the browser tests: Debian's `chromium` driven by `playwright-core`. No
 * browser is ever downloaded; when /usr/bin/chromium is missing the tests fail saying how to
 * install it (`.ci/run` does).
 */
import {existsSync} from 'node:fs'

import {type Browser, type BrowserContext, type Page, chromium} from 'playwright-core'

export const CHROMIUM_PATH = '/usr/bin/chromium'
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests`)
  }
  return chromium.launch({executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS})
}

export interface BrowserPage {
  page: Page
  context: BrowserContext
  /** Failed loads and page errors seen so far (a page that works has none). */
  problems: string[]
  close(): Promise<void>
}

/**
 * A fresh context and page (no cookies or cache shared between tests), with JavaScript turned
 * off unless asked for: the pages must work as plain HTML forms.
 */
export async function openPage(browser: Browser, options: {javaScript?: boolean} = {}): Promise<BrowserPage> {
  const context = await browser.newContext({javaScriptEnabled: options.javaScript ?? false})
  const page = await context.newPage()
  page.setDefaultTimeout(10_000)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`))
  return {page, context, problems, close: () => context.close()}
}
