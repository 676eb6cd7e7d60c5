/**
 * The emulator's dashboard, as HTML: recent transactions with a search, and one transaction's
 * status timeline, webhook deliveries and the forms that trigger a status or resend webhooks.
 * Plain forms that work without JavaScript; every value goes through `escapeHtml`. Rendering is
 * pure; the routes (dashboard-routes.ts) read the store and act.
 */
import {STATUSES, formatMinorUnits, isFinalStatus, isSuccessStatus} from '../../api/contract.js'
import type {Transaction} from '../../api/schemas.js'
import {escapeHtml, renderHtmlDocument} from '../../http/html.js'
import {displayWebhookUrl} from '../events.js'
import type {StatusChange, WebhookDelivery} from '../store/index.js'
import {ALLOWED_MOVES} from '../admin/index.js'

/** Where the dashboard's pages are. */
export const DASHBOARD_PATHS = {
  home: '/',
  transaction: (id: string) => `/_emulator/dashboard/transactions/${encodeURIComponent(id)}`,
  trigger: (id: string) => `/_emulator/dashboard/transactions/${encodeURIComponent(id)}/trigger`,
  resend: (id: string) => `/_emulator/dashboard/transactions/${encodeURIComponent(id)}/resend`,
}

const DASHBOARD_STYLESHEET = `
  main.dashboard { max-width: 72rem; }
  .dashboard h1 { margin-bottom: 1rem; }
  .dashboard .panel + .panel { margin-top: 1rem; }
  .dashboard .panel h2 { margin-top: 0; }
  .dashboard .panel dl.summary { margin: 0; }
  form.search { display: flex; gap: .5rem; flex-wrap: wrap; align-items: flex-end; margin: 0 0 1rem; }
  form.search label { margin: 0; width: 100%; }
  input[type=search], input[type=url], input.reason, select { font: inherit; padding: .5rem .75rem; border: 1px solid #b9c2d0;
    border-radius: 8px; background: #fff; min-width: 0; }
  form.search input { flex: 1 1 16rem; }
  .notice { border: 1px solid #abefc6; background: #ecfdf3; color: var(--ok); border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1rem; }
  .status.final-failure { background: #fef3f2; color: var(--danger); }
  .status.final-success, .status.success { background: #ecfdf3; color: var(--ok); }
  .status.critical { background: #fffaeb; color: var(--warn); }
  table.list td, table.list th { white-space: nowrap; }
  table.list td.wrap { white-space: normal; overflow-wrap: anywhere; }
  .empty { color: var(--muted); }
  ol.timeline { list-style: none; padding: 0; margin: .5rem 0 0; }
  ol.timeline li { border-left: 3px solid var(--line); padding: .25rem 0 .5rem .75rem; }
  ol.timeline time, .muted { color: var(--muted); font-size: .85rem; }
  .forms { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
  .forms form label { margin-top: .5rem; }
  .forms .check { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
  .forms select, .forms input.reason, .forms input[type=url] { width: 100%; }
  .back { display: inline-block; margin-bottom: .75rem; }
  @media (max-width: 48rem) {
    .forms { grid-template-columns: 1fr; }
    table.list thead { display: none; }
    table.list, table.list tbody, table.list tr, table.list td { display: block; width: 100%; }
    table.list tr { border-bottom: 1px solid var(--line); padding: .5rem 0; }
    table.list td { border: 0; padding: .15rem 0; display: flex; justify-content: space-between; gap: 1rem; white-space: normal;
      overflow-wrap: anywhere; text-align: right; }
    table.list td::before { content: attr(data-label); color: var(--muted); font-weight: 600; text-align: left; flex: none;
      white-space: nowrap; overflow-wrap: normal; }
    table.list td > * { min-width: 0; }
    table.list td code { white-space: normal; word-break: break-all; }
  }
`

function page(title: string, body: string): string {
  return renderHtmlDocument(`${title} · paytx emulator`, body, {stylesheet: DASHBOARD_STYLESHEET, mainClass: 'dashboard'})
}

function statusBadge(status: string): string {
  const tone = status === 'UNKNOWN' ? 'critical' : isSuccessStatus(status) ? 'success' : isFinalStatus(status) ? 'final-failure' : ''
  return `<span class="status ${tone}">${escapeHtml(status)}</span>`
}

function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', ' UTC')
}

export interface TransactionListItem {
  transaction: Transaction
  customerName: string
}

export function renderDashboardHome(items: readonly TransactionListItem[], search: string): string {
  const rows = items.map(({transaction: tx, customerName}) => {
    const cells: [string, string, string?][] = [
      ['Created', escapeHtml(formatTime(tx.created_at))],
      ['Transaction', `<a href="${escapeHtml(DASHBOARD_PATHS.transaction(tx.id))}"><code>${escapeHtml(tx.id)}</code></a>`, 'wrap'],
      ['Status', statusBadge(tx.status)],
      ['Product', escapeHtml(tx.payment_product)],
      ['Amount', escapeHtml(`${formatMinorUnits(tx.amount)} EUR`)],
      ['Reference', escapeHtml(tx.merchant_reference ?? ''), 'wrap'],
      ['Customer', escapeHtml(customerName), 'wrap'],
    ]
    return tableRow(cells)
  })
  const table =
    rows.length > 0
      ? `<table class="list" id="transactions"><thead><tr>${['Created', 'Transaction', 'Status', 'Product', 'Amount', 'Reference', 'Customer'].map((head) => `<th scope="col">${head}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`
      : `<p class="empty" id="no-transactions">${search ? `No transaction matches ${escapeHtml(JSON.stringify(search))}.` : 'No transactions yet: start one (paytx flow --product dummy --amount 1499).'}</p>`
  return page(
    'Dashboard',
    `<p class="brand">paytx emulator · dashboard</p>
<h1>Transactions</h1>
<div class="panel">
<form class="search" method="get" action="/" role="search">
<label for="search">Search by transaction id, merchant reference or customer (id, name, e-mail)</label>
<input type="search" id="search" name="q" value="${escapeHtml(search)}">
<button type="submit" class="primary">Search</button>
</form>
${table}
</div>
<footer>Emulated by paytx. No real money moves. Newest first; at most 50 shown.</footer>`,
  )
}

export interface TransactionPageContext {
  transaction: Transaction
  customerName: string
  webhookAddress?: string
  changes: readonly StatusChange[]
  deliveries: readonly WebhookDelivery[]
  /** The per-process token every form carries (see dashboard-routes.ts). */
  formToken: string
  notice?: string
  error?: string
}

export function renderTransactionPage(ctx: TransactionPageContext): string {
  const tx = ctx.transaction
  const summary: [string, string][] = [
    ['Transaction', `<code id="transaction-id">${escapeHtml(tx.id)}</code>`],
    ['Status', `<span id="status">${statusBadge(tx.status)}</span>${tx.status_reason ? ` <span class="muted">${escapeHtml(tx.status_reason)}</span>` : ''}`],
    ['Amount', escapeHtml(`${formatMinorUnits(tx.amount)} EUR`)],
    ['Product', escapeHtml(tx.payment_product)],
    ['Reference', escapeHtml(tx.merchant_reference ?? '')],
    ['Customer', `${escapeHtml(ctx.customerName)} <code>${escapeHtml(tx.customer ?? '')}</code>`],
    ['Created', escapeHtml(formatTime(tx.created_at))],
    ['Last change', escapeHtml(formatTime(tx.last_status_update))],
    ['Webhooks to', ctx.webhookAddress ? `<code>${escapeHtml(displayWebhookUrl(ctx.webhookAddress))}</code>` : '<span class="muted">no address</span>'],
  ]
  return page(
    `Transaction ${tx.id}`,
    `<p class="brand">paytx emulator · dashboard</p>
<a class="back" href="/">← All transactions</a>
<h1>${escapeHtml(`${formatMinorUnits(tx.amount)} EUR`)} · ${escapeHtml(tx.payment_product)}</h1>
${ctx.notice ? `<p class="notice" role="status" id="notice">${escapeHtml(ctx.notice)}</p>` : ''}
${ctx.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(ctx.error)}</p>` : ''}
<div class="panel">
<dl class="summary">${summary.map(([term, html]) => `<dt>${escapeHtml(term)}</dt><dd>${html}</dd>`).join('')}</dl>
</div>
<div class="panel forms">
${renderTriggerForm(ctx)}
${renderResendForm(ctx)}
</div>
<div class="panel">
<h2>Status timeline</h2>
${renderTimeline(ctx.changes)}
</div>
<div class="panel">
<h2>Webhook deliveries</h2>
${renderDeliveries(ctx.deliveries)}
</div>
<footer>Emulated by paytx. No real money moves.</footer>`,
  )
}

export function renderDashboardError(title: string, message: string): string {
  return page(title, `<p class="brand">paytx emulator · dashboard</p>
<a class="back" href="/">← All transactions</a>
<div class="panel"><h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p></div>`)
}

function renderTriggerForm(ctx: TransactionPageContext): string {
  const from = ctx.transaction.status
  const allowed: readonly string[] = (ALLOWED_MOVES as Record<string, readonly string[]>)[from] ?? []
  const option = (status: string) => `<option value="${escapeHtml(status)}">${escapeHtml(status)}</option>`
  const others = STATUSES.filter((status) => !allowed.includes(status))
  // The moves the state table allows come first, so the default choice is one of them.
  const options = [
    ...(allowed.length > 0 ? [`<optgroup label="Moves from ${escapeHtml(from)}">${allowed.map(option).join('')}</optgroup>`] : []),
    `<optgroup label="Needs force">${others.map(option).join('')}</optgroup>`,
  ]
  return `<form method="post" action="${escapeHtml(DASHBOARD_PATHS.trigger(ctx.transaction.id))}" id="trigger-form">
<h2>Trigger a status</h2>
<p class="hint">Moves the transaction as the processor would and sends its webhook.</p>
<input type="hidden" name="token" value="${escapeHtml(ctx.formToken)}">
<label for="trigger-status">New status</label>
<select id="trigger-status" name="status">${options.join('')}</select>
<label for="trigger-reason">Reason <span class="hint">(optional; its status_reason)</span></label>
<input class="reason" type="text" id="trigger-reason" name="reason" maxlength="200">
<label class="check"><input type="checkbox" name="force" value="true" id="trigger-force"> Force a move the state table does not allow</label>
<div class="actions"><button type="submit" class="primary" id="trigger-submit">Move</button></div>
</form>`
}

function renderResendForm(ctx: TransactionPageContext): string {
  return `<form method="post" action="${escapeHtml(DASHBOARD_PATHS.resend(ctx.transaction.id))}" id="resend-form">
<h2>Resend webhooks</h2>
<p class="hint">Sends them again with the body they were sent with.</p>
<input type="hidden" name="token" value="${escapeHtml(ctx.formToken)}">
<label for="resend-to">To <span class="hint">(optional; default: where each went)</span></label>
<input type="url" id="resend-to" name="to" placeholder="http://127.0.0.1:3000/webhooks">
<div class="actions">
<button type="submit" class="primary" name="which" value="last" id="resend-last">Resend the last</button>
<button type="submit" class="secondary" name="which" value="all" id="resend-all">Resend all</button>
</div>
</form>`
}

function renderTimeline(changes: readonly StatusChange[]): string {
  if (changes.length === 0) return '<p class="empty">No status change recorded.</p>'
  const items = changes.map(
    (change) =>
      `<li><time datetime="${escapeHtml(change.at)}">${escapeHtml(formatTime(change.at))}</time><br>${change.from ? `${statusBadge(change.from)} → ` : ''}${statusBadge(change.to)} <span class="muted">by ${escapeHtml(change.by)}${change.reason ? ` · ${escapeHtml(change.reason)}` : ''}</span></li>`,
  )
  return `<ol class="timeline" id="timeline">${items.join('\n')}</ol>`
}

function renderDeliveries(deliveries: readonly WebhookDelivery[]): string {
  if (deliveries.length === 0) return '<p class="empty" id="no-deliveries">No webhook sent: the transaction and its payment profile have no webhook address.</p>'
  const rows = deliveries.flatMap((delivery) => {
    const address = `<code>${escapeHtml(displayWebhookUrl(delivery.url))}</code>`
    if (delivery.attempts.length === 0) {
      return [row(delivery.status, address, '–', 'pending', '–', formatTime(delivery.created_at))]
    }
    return delivery.attempts.map((attempt) =>
      row(
        delivery.status,
        address,
        String(attempt.attempt),
        attempt.http_status === undefined ? (attempt.error ?? 'no answer') : `HTTP ${attempt.http_status}`,
        `${attempt.duration_ms} ms`,
        formatTime(attempt.at),
      ),
    )
  })
  return `<table class="list" id="deliveries"><thead><tr>${['Status', 'Address', 'Attempt', 'Answer', 'Time taken', 'At'].map((head) => `<th scope="col">${head}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`
}

function row(status: string, addressHtml: string, attempt: string, answer: string, took: string, at: string): string {
  const cells: [string, string, string?][] = [
    ['Status', statusBadge(status)],
    ['Address', addressHtml, 'wrap'],
    ['Attempt', escapeHtml(attempt)],
    ['Answer', escapeHtml(answer)],
    ['Time taken', escapeHtml(took)],
    ['At', escapeHtml(at)],
  ]
  return tableRow(cells)
}

/** A row whose cells carry their column's name, shown beside the value on narrow screens. */
function tableRow(cells: readonly [label: string, html: string, kind?: string][]): string {
  return `<tr>${cells.map(([label, html, kind]) => `<td data-label="${escapeHtml(label)}"${kind ? ` class="${kind}"` : ''}>${html}</td>`).join('')}</tr>`
}
