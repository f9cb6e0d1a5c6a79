// Rollback: the accepted revisions of one API client in a window (of one
// model or version, when chosen) are reverted; where a product still holds
// what one applied, its value before is restored, else it is counted as a
// conflict and left alone. A dry run says first how many revisions, fields
// and products; nothing is sent until the reviewer confirms those counts.
import * as api from '../lib/api.js';
import { h, message, replace } from '../lib/dom.js';

/** rollback sends POST /api/enrichment/review/rollbacks: {revisions, restored, conflicts, products}. */
export function rollback(body) {
  return api.pb.send('/api/enrichment/review/rollbacks', { method: 'POST', body });
}

function input(id, label, attrs = {}) {
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, ...attrs }));
}

/** rollbackSection draws the rollback form: choose, see the dry run's counts, confirm. */
export function rollbackSection(clients) {
  const result = h('div', { id: 'rollback-result', role: 'status' });
  const form = h('form', { class: 'filters rollback-form', id: 'rollback-form' },
    h('div', { class: 'field' }, h('label', { for: 'rb-client' }, 'API client'),
      h('select', { id: 'rb-client', required: true }, clients.map((c) => h('option', { value: String(c.id) }, c.name || `#${c.id}`)))),
    input('rb-model', 'Model (optional)', { type: 'text', maxlength: '100' }),
    input('rb-version', 'Model version (optional)', { type: 'text', maxlength: '100' }),
    input('rb-since', 'Decided since', { type: 'datetime-local', required: true }),
    input('rb-until', 'Until (optional)', { type: 'datetime-local' }),
    h('div', { class: 'field' }, h('button', { type: 'submit', id: 'rb-dry' }, 'Dry run')));
  let chosen = null;
  form.addEventListener('input', () => { chosen = null; replace(result); });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = read(form);
    if (!body) {
      replace(result, h('p', { class: 'error' }, 'Choose an API client and when the window starts.'));
      return;
    }
    try {
      const dry = await rollback({ ...body, dryRun: true });
      chosen = body;
      replace(result, h('p', { id: 'rb-counts' }, counts(dry, true)),
        dry.revisions ? h('button', {
          type: 'button', class: 'danger', id: 'rb-confirm',
          onclick: async (ev) => {
            ev.target.disabled = true;
            try {
              const done = await rollback({ ...chosen, dryRun: false });
              replace(result, h('p', { id: 'rb-done' }, counts(done, false)));
            } catch (err) {
              replace(result, h('p', { class: 'error', role: 'alert' }, `Not rolled back: ${message(err)}`));
            }
          },
        }, `Roll back ${dry.revisions} revision${dry.revisions === 1 ? '' : 's'}`) : null);
    } catch (err) {
      replace(result, h('p', { class: 'error', role: 'alert' }, `Could not count: ${message(err)}`));
    }
  });
  return h('section', { class: 'card chart', id: 'rollback', 'aria-labelledby': 'rollback-title' },
    h('h3', { id: 'rollback-title' }, 'Rollback'),
    h('p', { class: 'small muted' }, 'Revert what one API client had accepted in a window; values changed since are left alone.'),
    form, result);
}

// read is the rollback's selection from the form, or null when incomplete.
function read(form) {
  const v = (id) => form.querySelector(`#${id}`).value.trim();
  if (!v('rb-client') || !v('rb-since')) return null;
  const body = { apiClient: v('rb-client'), since: new Date(v('rb-since')).toISOString() };
  if (v('rb-until')) body.until = new Date(v('rb-until')).toISOString();
  if (v('rb-model')) body.model = v('rb-model');
  if (v('rb-version')) body.modelVersion = v('rb-version');
  return body;
}

function counts(r, dry) {
  const n = (k, one, many) => `${r[k]} ${r[k] === 1 ? one : many}`;
  return `${dry ? 'Would revert' : 'Reverted'} ${n('revisions', 'revision', 'revisions')}: ` +
    `${n('restored', 'value', 'values')} restored, ${n('conflicts', 'conflict', 'conflicts')} left alone, ` +
    `${n('products', 'product', 'products')} changed.`;
}
