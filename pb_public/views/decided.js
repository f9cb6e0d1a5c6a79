// The decided view: the organization's decided revisions, newest decision
// first, from GET /api/enrichment/review/decided: everyone's or the
// reviewer's own, by whom (a person or a trust policy) and by API client,
// a page at a time. Each opens in the revision view (#queue/ID), which
// shows what became of each field. Its filters and page are kept in the
// address (lib/decided-address.js).
import * as api from '../lib/api.js';
import { decidedFromAddress, writeDecidedAddress } from '../lib/decided-address.js';
import { $, ago, h, message, replace, when } from '../lib/dom.js';

const state = { page: 1, whose: '', decidedBy: '', client: '', seq: 0 };
let clients = null;

/** decided reads one page (from 1) of decided revisions: {items, page, totalPages, totalItems}. */
export async function decided({ page, whose, decidedBy, client }) {
  const query = { page: page - 1, pageSize: 50 };
  if (whose) query.reviewer = whose;
  if (decidedBy) query.decidedBy = decidedBy;
  if (client) query.client = client;
  const res = await api.pb.send('/api/enrichment/review/decided', { method: 'GET', query });
  return {
    items: res.items ?? [],
    page: (res.page ?? 0) + 1,
    totalPages: Math.max(1, res.totalPages ?? 1),
    totalItems: res.totalElements ?? res.totalItems ?? (res.items ?? []).length,
  };
}

// select is a labelled picker whose change sets state[key] and reads the list again.
function select(id, label, key, options) {
  const el = h('select', { id, onchange: () => { state[key] = el.value; state.page = 1; draw(); } },
    options.map(([value, text]) => h('option', { value }, text)));
  el.value = state[key];
  return h('div', { class: 'field' }, h('label', { for: id }, label), el);
}

/** showDecided draws the decided view in body, with the filters the address names (a bare #decided keeps those of the last visit). */
export async function showDecided(body) {
  Object.assign(state, decidedFromAddress());
  clients ??= api.clients().catch(() => []);
  const list = await clients;
  replace(body,
    h('form', { class: 'filters decided-filters', onsubmit: (e) => e.preventDefault() },
      select('d-whose', 'Decided by', 'whose', [['', 'Everyone'], ['me', 'Me']]),
      select('d-by', 'Who decided', 'decidedBy', [['', 'People and policies'], ['reviewer', 'A person'], ['policy', 'A trust policy']]),
      select('d-client', 'API client', 'client', [['', 'All clients'], ...list.map((c) => [String(c.id), c.name || `#${c.id}`])])),
    h('p', { id: 'decided-summary', class: 'summary', 'aria-live': 'polite' }),
    h('div', { id: 'decided-list' }),
    h('div', { class: 'pager', id: 'decided-pager', hidden: true },
      h('button', { type: 'button', id: 'decided-prev', onclick: () => { state.page--; draw(); } }, '‹ Newer'),
      h('span', { id: 'decided-page' }),
      h('button', { type: 'button', id: 'decided-next', onclick: () => { state.page++; draw(); } }, 'Older ›')));
  await draw();
}

// fieldsOf names what a decided revision applied, as the server says, or that it applied nothing.
function fieldsOf(r) {
  const applied = Array.isArray(r.applied) ? r.applied : [];
  return applied.length ? applied.map((f) => api.fieldLabels[f] || f).join(', ') : '—';
}

// who names the decider for people: a person's email (a superuser's said
// so), the service, or the trust policy.
function who(r) {
  if (r.decidedBy === 'policy') return r.policy ? `trust policy #${r.policy}` : 'a trust policy';
  const { kind, email } = r.reviewer && typeof r.reviewer === 'object' ? r.reviewer : {};
  if (kind === 'superuser') return `${email} (superuser)`;
  if (kind === 'system') return 'the service';
  return email || 'someone';
}

async function draw() {
  const mine = ++state.seq;
  const box = $('#decided-list');
  box.setAttribute('aria-busy', 'true');
  try {
    const res = await decided(state);
    if (mine !== state.seq) return;
    state.page = res.page;
    writeDecidedAddress(state);
    $('#decided-summary').textContent = res.totalItems ? `${res.totalItems} decided` : 'Nothing decided here yet.';
    replace(box, res.items.length ? h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Decided revisions' },
      h('table', { class: 'decided-table' },
        h('thead', {}, h('tr', {}, ['Decided', 'SKU', 'Product', 'API client', 'Outcome', 'Applied', 'By', 'Reason']
          .map((t) => h('th', { scope: 'col' }, t)))),
        // note: each cell names its column (data-label), which a phone shows as the rows stack (more.css)
        h('tbody', {}, res.items.map((r) => h('tr', { dataset: { id: String(r.id), status: r.status } },
          h('td', { class: 'when', 'data-label': 'Decided', title: when(r.reviewedAt || r.closedAt) }, ago(r.reviewedAt || r.closedAt)),
          h('th', { scope: 'row' }, h('a', { href: `#queue/${r.id}`, class: 'sku' }, r.sku)),
          h('td', { class: 'wide', 'data-label': 'Product' }, r.expand?.product?.name ?? r.productName ?? ''),
          h('td', { 'data-label': 'API client' }, r.expand?.apiClient?.name ?? r.clientName ?? `#${r.apiClient}`),
          h('td', { 'data-label': 'Outcome' }, h('span', { class: `badge status st-${r.status}` }, r.status)),
          h('td', { class: 'applied', 'data-label': 'Applied' }, fieldsOf(r)),
          h('td', { class: 'by wide', 'data-label': 'By' }, who(r)),
          r.reason ? h('td', { class: 'wide', 'data-label': 'Reason' }, api.reasonLabel(r.reason)) : h('td', { class: 'none' }))))))
      : null);
    $('#decided-pager').hidden = res.totalPages <= 1;
    $('#decided-page').textContent = `Page ${res.page} of ${res.totalPages}`;
    $('#decided-prev').disabled = res.page <= 1;
    $('#decided-next').disabled = res.page >= res.totalPages;
  } catch (err) {
    if (mine === state.seq) replace(box, h('p', { class: 'error', role: 'alert' }, `Could not read what was decided: ${message(err)}`));
  } finally {
    if (mine === state.seq) box.removeAttribute('aria-busy');
  }
}
