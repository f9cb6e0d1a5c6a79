// The revision view: for each proposed field the product's value now, when
// the proposal was made and as proposed, side by side, with the decision
// buttons.
import * as api from './api.js';
import { $, h, message, replace, when } from './dom.js';
import { changedSince, compareAttributes, compareLists, wordDiff } from './diff.js';

const labels = { name: 'Name', slug: 'Slug', description: 'Description', attributes: 'Attributes', files: 'Files' };

const state = { id: null, rev: null, seq: 0, busy: false, onDecided: () => {} };

/** initRevision sets what happens after a decision (onDecided(id)). */
export function initRevision({ onDecided }) {
  state.onDecided = onDecided;
}

/** shown is the id of the revision on screen, if any. */
export function shown() {
  return state.rev?.id ?? null;
}

/** show reads revision id (fresh, with its product as it is now) and renders it. */
export async function show(id, { force = false } = {}) {
  const panel = $('#revision');
  if (!id) {
    state.id = null;
    state.rev = null;
    replace(panel, h('p', { class: 'muted center' }, 'Nothing to review here.'));
    return;
  }
  if (id === state.id && !force) return;
  state.id = id;
  const seq = ++state.seq;
  panel.setAttribute('aria-busy', 'true');
  try {
    const rev = await api.getRevision(id);
    if (seq !== state.seq) return;
    state.rev = rev;
    render(panel, rev);
  } catch (err) {
    if (seq !== state.seq) return;
    state.rev = null;
    replace(panel, h('p', { class: 'error center', role: 'alert' },
      err.status === 404 ? `Revision ${id} was not found.` : `Could not load revision ${id}: ${message(err)}`));
  } finally {
    if (seq === state.seq) panel.removeAttribute('aria-busy');
  }
}

function proposedFields(rev) {
  return api.fieldNames.filter((f) => rev.proposed && Object.hasOwn(rev.proposed, f));
}

function render(panel, rev) {
  const product = rev.expand?.product;
  const fields = proposedFields(rev);
  const changed = product ? fields.filter((f) => changedSince(f, product[f], rev.base?.[f])) : [];
  const pending = rev.status === 'pending';
  const client = rev.expand?.apiClient?.name || `client #${rev.apiClient}`;
  const template = product?.expand?.attributeTemplate?.name;
  const confidence = rev.confidenceBand ? `confidence ${rev.confidence} (band ${rev.confidenceBand})` : 'no confidence given';

  const warnings = [];
  if (!product) {
    warnings.push('The product of this revision no longer exists: it can only be rejected.');
  } else if (!product.active) {
    warnings.push('The product is inactive: this revision can only be rejected.');
  }
  if (changed.length) {
    warnings.push(`The product changed since this proposal was made (${changed.map((f) => labels[f]).join(', ')}): ` +
      'compare “Now” with “When proposed” before accepting. Accepting applies the proposed value over the current one.');
  }

  replace(panel,
    h('header', { class: 'rev-head' },
      h('h2', { id: 'rev-title' }, h('span', { class: 'sku' }, rev.sku), ' ', product?.name || ''),
      h('p', { class: 'meta' },
        `Revision #${rev.id} · from ${client} · ${confidence} · proposed ${when(rev.created)}`,
        template ? ` · template ${template}` : '')),
    warnings.length ? h('div', { class: 'warning', role: 'alert', id: 'rev-warning' }, warnings.map((w) => h('p', {}, '⚠ ', w))) : null,
    pending ? null : decidedNote(rev),
    h('div', { class: 'fields' }, fields.map((f, i) => fieldBlock(f, i, rev, product, changed.includes(f), pending))),
    pending ? decisionBar(fields) : null);
}

function decidedNote(rev) {
  const which = rev.status === 'accepted' && rev.approvedFields?.length ? ` (fields: ${rev.approvedFields.join(', ')})` : '';
  return h('p', { class: `decided st-${rev.status}`, role: 'status' },
    `This revision was ${rev.status}${which} on ${when(rev.reviewedAt)} by ${rev.reviewer || 'someone'}.`);
}

function fieldBlock(field, i, rev, product, changed, pending) {
  const now = product?.[field];
  const base = rev.base?.[field];
  const proposed = rev.proposed[field];
  const head = h('div', { class: 'field-head' },
    pending
      ? [h('input', { type: 'checkbox', id: `pick-${field}`, class: 'pick', checked: true, dataset: { field } }),
        h('label', { for: `pick-${field}` }, h('kbd', {}, String(i + 1)), ' ', labels[field])]
      : h('h3', {}, labels[field]),
    changed ? h('span', { class: 'badge warn' }, 'changed since proposal') : null);
  let body;
  if (field === 'attributes') body = attributesTable(now, base, proposed);
  else if (field === 'files') body = columns(list(now), ...filesCompared(base, proposed));
  else body = columns(text(now), ...textCompared(base, proposed));
  return h('section', { class: `field-block${changed ? ' changed' : ''}`, dataset: { field } }, head, body);
}

function columns(now, base, proposed) {
  const col = (cls, title, content) => h('div', { class: `col ${cls}` }, h('h4', {}, title), h('div', { class: 'val' }, content));
  return h('div', { class: 'cols' },
    col('now', 'Now', now),
    col('base', 'When proposed', base),
    col('proposed', 'Proposed', proposed));
}

function empty() {
  return h('span', { class: 'empty' }, '(empty)');
}

function text(value) {
  return value ? String(value) : empty();
}

// textCompared renders base with removed words struck and the proposal
// with added words marked.
function textCompared(base, proposed) {
  const segments = wordDiff(base ?? '', proposed ?? '');
  const side = (keep, mark, tag) => {
    const out = segments.flatMap((s) => {
      if (s.op === 'same') return [s[keep]];
      if (s.op === mark) return [h(tag, {}, s.text)];
      return [];
    });
    return out.some((x) => x !== '') ? out : [empty()];
  };
  return [side('a', 'del', 'del'), side('b', 'ins', 'ins')];
}

function list(items) {
  if (!Array.isArray(items) || items.length === 0) return empty();
  return h('ul', { class: 'files' }, items.map((f) => h('li', {}, String(f))));
}

function filesCompared(base, proposed) {
  const c = compareLists(base, proposed);
  const render = (rows, mark, tag, note) => (rows.length === 0 ? empty() : h('ul', { class: 'files' },
    rows.map((r) => h('li', {}, r.op === mark ? [h(tag, {}, r.text), h('span', { class: 'note' }, ` ${note}`)] : r.text))));
  return [render(c.base, 'del', 'del', 'removed'), render(c.proposed, 'ins', 'ins', 'added')];
}

const statusLabel = {
  added: 'added', changed: 'changed', removed: 'removed', unchanged: 'unchanged', kept: 'not in proposal',
};

function attributesTable(now, base, proposed) {
  const rows = compareAttributes(now, base, proposed);
  // attributes the proposal leaves alone are folded away, unless they changed since
  const shown = rows.filter((r) => r.isProposed || r.changedSince);
  const folded = rows.filter((r) => !r.isProposed && !r.changedSince);
  const cell = (v) => (v === undefined ? h('span', { class: 'empty' }, '—') : v === '' ? empty() : v);
  const row = (r) => {
    let b = cell(r.base);
    let p = cell(r.proposed);
    if (r.status === 'changed') [b, p] = textCompared(r.base, r.proposed);
    else if (r.status === 'added') p = h('ins', {}, r.proposed);
    else if (r.status === 'removed') b = h('del', {}, r.base);
    return h('tr', { class: `st-${r.status}${r.changedSince ? ' changed-since' : ''}`, dataset: { attribute: r.name } },
      h('th', { scope: 'row' }, r.name),
      h('td', {}, cell(r.now), r.changedSince ? h('span', { class: 'badge warn' }, 'changed') : null),
      h('td', {}, b), h('td', {}, p),
      h('td', {}, h('span', { class: `badge st-${r.status}` }, statusLabel[r.status])));
  };
  const more = h('tbody', { class: 'folded', hidden: true }, folded.map(row));
  const noun = folded.length === 1 ? 'attribute' : 'attributes';
  const toggle = h('button', {
    type: 'button', class: 'link-button', 'aria-expanded': 'false',
    onclick: () => {
      more.hidden = !more.hidden;
      toggle.setAttribute('aria-expanded', String(!more.hidden));
      toggle.textContent = `${more.hidden ? 'Show' : 'Hide'} ${folded.length} ${noun} not in the proposal`;
    },
  }, `Show ${folded.length} ${noun} not in the proposal`);
  return h('table', { class: 'attrs' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Attribute'), h('th', { scope: 'col' }, 'Now'),
      h('th', { scope: 'col' }, 'When proposed'), h('th', { scope: 'col' }, 'Proposed'),
      h('th', { scope: 'col' }, 'Change'))),
    h('tbody', {}, shown.map(row)),
    folded.length ? h('tbody', {}, h('tr', { class: 'more' }, h('td', { colspan: '5' }, toggle))) : null,
    more);
}

function decisionBar(fields) {
  return h('div', { class: 'decide', role: 'group', 'aria-label': 'Decision' },
    h('button', { type: 'button', class: 'primary', id: 'accept-all', onclick: () => acceptAll() },
      'Accept all ', h('kbd', {}, 'a')),
    h('button', { type: 'button', id: 'accept-selected', onclick: () => acceptSelected() },
      'Accept selected ', h('kbd', {}, 's')),
    h('button', { type: 'button', class: 'danger', id: 'reject', onclick: () => reject() },
      'Reject ', h('kbd', {}, 'r')),
    h('span', { class: 'small muted' }, `${fields.length} field${fields.length === 1 ? '' : 's'} proposed`),
    h('p', { id: 'decision-status', role: 'status', class: 'small' }));
}

function selectedFields() {
  return [...document.querySelectorAll('#revision .pick')].filter((c) => c.checked).map((c) => c.dataset.field);
}

/** toggleField selects or unselects the n-th proposed field (1-based). */
export function toggleField(n) {
  const box = document.querySelectorAll('#revision .pick')[n - 1];
  if (box) box.checked = !box.checked;
}

/** acceptAll accepts every proposed field of the revision on screen. */
export function acceptAll() {
  return decideShown('accepted', null);
}

/** acceptSelected accepts the selected fields only. */
export function acceptSelected() {
  const fields = selectedFields();
  if (fields.length === 0) {
    setStatus('Select at least one field to accept, or reject the revision.');
    return Promise.resolve();
  }
  return decideShown('accepted', fields);
}

/** reject rejects the revision on screen. */
export function reject() {
  return decideShown('rejected', null);
}

function setStatus(text) {
  const el = $('#decision-status');
  if (el) el.textContent = text;
}

async function decideShown(status, fields) {
  const rev = state.rev;
  if (!rev || rev.status !== 'pending' || state.busy) return;
  state.busy = true;
  for (const b of document.querySelectorAll('#revision .decide button')) b.disabled = true;
  setStatus(status === 'rejected' ? 'Rejecting…' : 'Accepting…');
  try {
    const res = await api.decide(rev.id, status, fields);
    rev.status = res.status;
    state.onDecided(rev.id, res);
  } catch (err) {
    setStatus(`Not saved: ${message(err)}`);
    for (const b of document.querySelectorAll('#revision .decide button')) b.disabled = false;
    state.onDecided(rev.id, null, err);
  } finally {
    state.busy = false;
  }
}
