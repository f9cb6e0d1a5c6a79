// Trust policies (collection trust_policies, through the records API): a
// policy lets one API client's proposals be accepted without a person once
// its measured precision earns it, under audit. Reviewers list, create and
// edit them; the service sets the state, the measurements and the reason.
import * as api from '../lib/api.js';
import { $, h, message, replace, when } from '../lib/dom.js';

const editable = ['apiClient', 'template', 'fields', 'minConfidence', 'targetPrecision', 'minReviewed', 'auditRate', 'enabled'];
const defaults = { minConfidence: 80, targetPrecision: 0.95, minReviewed: 200, auditRate: 0.05, enabled: true };

/** listPolicies reads the organization's trust policies with their client and template. */
export function listPolicies() {
  return api.pb.collection('trust_policies').getFullList({ sort: 'created,id', expand: 'apiClient,template' });
}

function percent(v) {
  return typeof v === 'number' ? `${(v * 100).toFixed(1)} %` : '–';
}

/** policiesSection draws the policies' table and the form that creates or edits one. */
export async function policiesSection(clients, templates) {
  const section = h('section', { class: 'card chart', id: 'policies', 'aria-labelledby': 'policies-title' },
    h('h3', { id: 'policies-title' }, 'Trust policies'),
    h('p', { class: 'small muted' }, 'A policy accepts an API client\'s proposals without a person while the lower bound of its ' +
      'measured precision (fields right ÷ fields a person decided, over 90 days) reaches its target. Every model version starts on ' +
      'probation (every 4th acceptance audited); a share of the rest is audited, and failed audits suspend it.'),
    h('div', { id: 'policies-list' }),
    h('button', { type: 'button', id: 'policy-new', onclick: () => openForm(null, clients, templates) }, 'New policy…'),
    h('div', { id: 'policy-form-box' }));
  await drawList(section, clients, templates);
  return section;
}

async function drawList(section, clients, templates) {
  const box = section.querySelector('#policies-list');
  try {
    const list = await listPolicies();
    // note: the table's scrolling region is named apart from the section (#policies, "Trust policies"):
    // two landmarks of one role and name are one too many (axe's landmark-unique)
    replace(box, list.length ? h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': 'Table of trust policies' },
      h('table', { class: 'policies' },
        h('thead', {}, h('tr', {}, ['API client', 'Template', 'Fields', 'Min. confidence', 'Measured precision', 'Lower bound', 'Target',
          'On probation', 'State']
          .map((t) => h('th', { scope: 'col' }, t)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Edit')))),
        // note: each cell names its column (data-label), which a phone shows as the rows stack (more.css)
        h('tbody', {}, list.map((p) => h('tr', { dataset: { id: String(p.id), state: p.state || '' } },
          h('th', { scope: 'row' }, p.expand?.apiClient?.name || `#${p.apiClient}`),
          h('td', { 'data-label': 'Template' }, p.expand?.template?.name || 'every template'),
          h('td', { 'data-label': 'Fields' }, (p.fields || []).map((f) => api.fieldLabels[f] || f).join(', ')),
          h('td', { class: 'num', 'data-label': 'Min. confidence' }, String(p.minConfidence ?? 0)),
          h('td', { class: 'measured wide', 'data-label': 'Measured precision' },
            `${percent(p.measuredPrecision)} of ${p.measuredReviewed ?? 0} reviewed (needs ${p.minReviewed})`),
          h('td', { class: 'num bound', 'data-label': 'Lower bound' }, percent(p.precisionLowerBound)),
          h('td', { class: 'num', 'data-label': 'Target' }, percent(p.targetPrecision)),
          h('td', { class: 'probation wide', 'data-label': 'On probation' }, probationList(p.probation)),
          h('td', { class: 'state wide', 'data-label': 'State' },
            h('span', { class: `badge policy-${p.state || 'learning'}` }, p.enabled ? (p.state || 'learning') : 'disabled'),
            p.stateReason ? h('span', { class: 'small reason' }, ` ${p.stateReason}`) : null,
            p.stateChangedAt ? h('span', { class: 'small muted' }, ` since ${when(p.stateChangedAt)}`) : null),
          h('td', {}, h('button', { type: 'button', class: 'link-button edit-policy', onclick: () => openForm(p, clients, templates) }, 'Edit')))))))
      : h('p', { class: 'muted' }, 'No trust policy yet: every proposal waits for a person.'));
  } catch (err) {
    replace(box, h('p', { class: 'error', role: 'alert' }, `Could not read the policies: ${message(err)}`));
  }
}

// probationList names the model versions on probation with their audits
// closed of the 20 that end it and those waiting.
function probationList(entries) {
  if (!Array.isArray(entries) || !entries.length) return h('span', { class: 'muted' }, 'none');
  return h('ul', { class: 'plain small' }, entries.map((v) =>
    h('li', { dataset: { version: v.version } }, `${v.version}: ${v.closed} of 20 audits closed, ${v.waiting} waiting, ${v.accepted} accepted`)));
}

// number is a labelled number input.
function number(name, label, value, { min, max, step }) {
  const id = `policy-${name}`;
  return h('div', { class: 'field' }, h('label', { for: id }, label),
    h('input', { id, name, type: 'number', min: String(min), max: String(max), step: String(step), value: String(value), required: true }));
}

// openForm shows the form for policy p (null: a new one).
function openForm(p, clients, templates) {
  const v = { ...defaults, fields: ['name', 'description'], ...(p || {}) };
  const error = h('p', { class: 'error small', role: 'alert', id: 'policy-error' });
  const form = h('form', { class: 'policy-form', id: 'policy-form', 'aria-labelledby': 'policy-form-title' },
    h('h4', { id: 'policy-form-title' }, p ? `Edit the policy of ${p.expand?.apiClient?.name || `#${p.apiClient}`}` : 'New policy'),
    h('div', { class: 'field' }, h('label', { for: 'policy-apiClient' }, 'API client'),
      h('select', { id: 'policy-apiClient', name: 'apiClient', required: true },
        clients.map((c) => h('option', { value: String(c.id) }, c.name || `#${c.id}`)))),
    h('div', { class: 'field' }, h('label', { for: 'policy-template' }, 'Template'),
      h('select', { id: 'policy-template', name: 'template' }, h('option', { value: '' }, 'Every template'),
        templates.map((t) => h('option', { value: String(t.id) }, t.name)))),
    h('fieldset', { class: 'policy-fields' }, h('legend', {}, 'Fields it may accept'),
      api.fieldNames.map((f) => h('label', {}, h('input', { type: 'checkbox', name: 'fields', value: f, checked: v.fields.includes(f) }), ` ${api.fieldLabels[f] || f}`))),
    number('minConfidence', 'Min. confidence (0–100)', v.minConfidence, { min: 0, max: 100, step: 1 }),
    number('targetPrecision', 'Target precision (0.5–1)', v.targetPrecision, { min: 0.5, max: 1, step: 0.01 }),
    number('minReviewed', 'Min. reviewed (≥ 20)', v.minReviewed, { min: 20, max: 1000000, step: 1 }),
    number('auditRate', 'Audit rate (0.01–1)', v.auditRate, { min: 0.01, max: 1, step: 0.01 }),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'enabled', id: 'policy-enabled', checked: Boolean(v.enabled) }), ' Enabled'),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', id: 'policy-save' }, p ? 'Save' : 'Create'),
      h('button', { type: 'button', id: 'policy-cancel', onclick: () => replace($('#policy-form-box')) }, 'Cancel')),
    error);
  form.elements.apiClient.value = String(v.apiClient ?? clients[0]?.id ?? '');
  form.elements.template.value = String(v.template ?? '');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const body = read(form);
    if (!p) body.organization = api.pb.authStore.record?.organization;
    try {
      if (p) await api.pb.collection('trust_policies').update(p.id, body);
      else await api.pb.collection('trust_policies').create(body);
      replace($('#policy-form-box'));
      await drawList($('#policies'), clients, templates);
    } catch (err) {
      error.textContent = `Not saved: ${message(err)}`;
    }
  });
  replace($('#policy-form-box'), form);
  form.elements.apiClient.focus();
}

// read is the form's values as the collection takes them.
function read(form) {
  const el = form.elements;
  const body = {};
  for (const name of editable) {
    if (name === 'fields') body.fields = [...form.querySelectorAll('input[name=fields]:checked')].map((c) => c.value);
    else if (name === 'enabled') body.enabled = el.enabled.checked;
    else if (name === 'apiClient' || name === 'template') body[name] = el[name].value;
    else body[name] = Number(el[name].value);
  }
  return body;
}
