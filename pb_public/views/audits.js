// The audit queue: revisions a trust policy accepted and drew for audit
// (audit "pending"). A reviewer confirms one, or reverts it: the revision
// is rolled back, its product's values before it restored. Closing audits
// is how a policy that goes wrong is suspended.
import * as api from '../lib/api.js';
import { $, ago, h, message, replace } from '../lib/dom.js';

/** pendingAudits reads the revisions waiting for an audit, oldest first. */
export function pendingAudits() {
  return api.pb.collection('revisions').getList(1, 100, {
    filter: "audit = 'pending'", sort: 'closedAt,id', expand: 'apiClient,product',
  });
}

/** auditsSection draws the audit queue; each audit is closed with confirmed or reverted. */
export async function auditsSection() {
  const section = h('section', { class: 'card chart', id: 'audits', 'aria-labelledby': 'audits-title' },
    h('h3', { id: 'audits-title' }, 'Audit queue'),
    h('p', { class: 'small muted' }, 'Revisions a trust policy accepted and drew for audit. Revert rolls the revision back.'),
    h('div', { id: 'audits-list' }),
    h('p', { id: 'audits-status', class: 'small', role: 'status' }));
  await draw(section);
  return section;
}

async function draw(section) {
  const box = section.querySelector('#audits-list');
  try {
    const res = await pendingAudits();
    replace(box, res.items.length ? h('ul', { class: 'audits' }, res.items.map((r) => h('li', { dataset: { id: String(r.id) } },
      h('a', { href: `#queue/${r.id}` }, r.sku), ' ', r.expand?.product?.name || '',
      h('span', { class: 'small muted' }, ` · ${r.expand?.apiClient?.name || `#${r.apiClient}`} · `,
        (r.approvedFields || []).map((f) => api.fieldLabels[f] || f).join(', '), ` · accepted ${ago(r.closedAt)}`),
      ' ', h('button', { type: 'button', class: 'confirm-audit', onclick: () => close(section, r, 'confirmed') }, 'Confirm'),
      ' ', h('button', { type: 'button', class: 'danger revert-audit', onclick: () => close(section, r, 'reverted') }, 'Revert'))))
      : h('p', { class: 'muted' }, 'No audit waiting.'));
  } catch (err) {
    replace(box, h('p', { class: 'error', role: 'alert' }, `Could not read the audits: ${message(err)}`));
  }
}

// close closes revision r's audit with outcome.
async function close(section, r, outcome) {
  const status = $('#audits-status');
  try {
    await api.pb.collection('revisions').update(r.id, { audit: outcome }, { fields: 'id,audit' });
    status.textContent = `Revision #${r.id} (${r.sku}) ${outcome}.`;
  } catch (err) {
    status.textContent = `Not saved: revision #${r.id}: ${message(err)}`;
  }
  await draw(section);
}
